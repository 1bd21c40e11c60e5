// The bench scripts' command line: `--name value` flags, and the words that are neither flags nor
// their values (a command and its operands).
export function benchArgs(argv: readonly string[] = process.argv.slice(2)) {
  const flag = (name: string, fallback: string): string => {
    const i = argv.indexOf(name);
    return i >= 0 ? (argv[i + 1] as string) : fallback;
  };
  const positional = argv.filter((a, i) => !a.startsWith('--') && !(argv[i - 1] ?? '').startsWith('--'));
  return { flag, positional };
}
