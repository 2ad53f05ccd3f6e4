#!/usr/bin/env node
// The package's command: the compiled server (dist-node/, built by `npm pack`). In the repository,
// `npm start` runs the sources instead (src/cli/main.ts).
import { main } from '../dist-node/taskscope.js';

process.exitCode = await main(process.argv.slice(2));
