/** `taskscope watch`: not built yet (issue #22). */
export async function run(_argv: string[]): Promise<number> {
  console.error('taskscope watch: not available yet');
  return 2;
}
