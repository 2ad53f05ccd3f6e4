/** `taskscope proxy --stdio`: written on its own branch; this stands in until it is merged. */
export async function runStdioProxy(argv: string[]): Promise<number> {
  void argv;
  console.error('taskscope proxy --stdio: not yet');
  return 2;
}
