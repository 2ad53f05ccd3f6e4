/**
 * Where stdio commands come from: the command line (`--stdio [name=…] -- command args…`, `--env`, `--cwd`)
 * and a config file the person names (`--config FILE`) in the `mcpServers` format MCP clients share. A file is
 * never looked for by itself: one in the working directory could be an untrusted checkout's.
 */
import path from 'node:path';
import { z } from 'zod';
import { RECEIVER_NAME, type StdioReceiver } from './bridge.js';

export interface HttpServerEntry {
  name: string;
  url: string;
  headers: Record<string, string>;
}

export interface ConfiguredServers {
  stdio: StdioReceiver[];
  http: HttpServerEntry[];
}

/** Thrown for anything the person must fix in what they typed or wrote; its message says what. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const StringMap = z.record(z.string(), z.string());
const StdioEntry = z.looseObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: StringMap.optional(),
  cwd: z.string().min(1).optional(),
});
const HttpEntry = z.looseObject({
  type: z.enum(['http', 'streamable-http', 'streamableHttp', 'sse']).optional(),
  url: z.string().min(1),
  headers: StringMap.optional(),
});
const ConfigFile = z.looseObject({ mcpServers: z.record(z.string(), z.unknown()) });

/** `KEY=VALUE`, as `--env` takes it. */
export function parseEnvAssignment(text: string): [string, string] {
  const [, key, value] = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(text) ?? [];
  if (key === undefined || value === undefined)
    throw new ConfigError(`--env ${JSON.stringify(text)}: give it as KEY=VALUE`);
  return [key, value];
}

export function checkName(name: string, where: string): string {
  if (!RECEIVER_NAME.test(name))
    throw new ConfigError(
      `${where}: the name ${JSON.stringify(name)} goes into a URL path; use letters, digits, ".", "_" and "-" (64 at most, starting with a letter or digit)`,
    );
  return name;
}

/** A name for a command nobody named: the package or script it runs (`npx -y @scope/server-x` → server-x). */
export function nameFor(command: string, args: readonly string[]): string {
  const runners = new Set([
    'npx',
    'uvx',
    'node',
    'python',
    'python3',
    'deno',
    'bun',
    'bunx',
    'pnpm',
    'tsx',
    'uv',
    'pipx',
    'docker',
  ]);
  // A script called index.js says little: the folder it sits in (past dist/, build/…) names the server.
  const generic = new Set([
    'index',
    'main',
    'cli',
    'server',
    'app',
    'dist',
    'build',
    'lib',
    'src',
    'bin',
    'out',
  ]);
  const base = (part: string) => {
    const parts = part
      .replace(/@[^@/]*$/, '')
      .split(/[\\/]/)
      .filter(Boolean);
    const names = parts.map((p) => p.replace(/\.(m?[jt]s|cjs|py|exe|cmd)$/i, ''));
    const named = [...names].reverse().find((n) => !generic.has(n.toLowerCase()));
    return named ?? names.at(-1) ?? part;
  };
  const program = base(command);
  const first = runners.has(program.toLowerCase())
    ? args.find((a) => !a.startsWith('-') && a !== 'run' && a !== 'exec')
    : undefined;
  const candidate = (first ? base(first) : program)
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '');
  return RECEIVER_NAME.test(candidate) ? candidate : 'server';
}

/** Reads an `mcpServers` file; relative `cwd`s are taken from the file's own folder. */
export function readServersConfig(text: string, file: string): ConfiguredServers {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file}: not JSON (${(error as Error).message})`);
  }
  const parsed = ConfigFile.safeParse(json);
  if (!parsed.success) throw new ConfigError(`${file}: expected {"mcpServers": {"name": {…}, …}}`);
  const out: ConfiguredServers = { stdio: [], http: [] };
  for (const [name, entry] of Object.entries(parsed.data.mcpServers)) {
    const where = `${file}: mcpServers.${name}`;
    checkName(name, where);
    const stdio = StdioEntry.safeParse(entry);
    if (stdio.success) {
      const { command, args = [], env = {}, cwd } = stdio.data;
      out.stdio.push({
        name,
        command: {
          command,
          args,
          env,
          cwd: cwd === undefined ? undefined : path.resolve(path.dirname(file), cwd),
        },
      });
      continue;
    }
    const http = HttpEntry.safeParse(entry);
    if (http.success) {
      let url: URL;
      try {
        url = new URL(http.data.url);
      } catch {
        throw new ConfigError(`${where}: url ${JSON.stringify(http.data.url)} is not a URL`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new ConfigError(`${where}: url must be http(s)`);
      if (http.data.type === 'sse')
        throw new ConfigError(
          `${where}: the old SSE transport is not supported; Taskscope speaks Streamable HTTP`,
        );
      out.http.push({ name, url: url.toString(), headers: http.data.headers ?? {} });
      continue;
    }
    throw new ConfigError(`${where}: needs "command" (with "args", "env", "cwd") or "url" (with "headers")`);
  }
  return out;
}
