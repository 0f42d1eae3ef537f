// A bench script's command-line flag: the word after name, or dflt.
export function flag(name, dflt) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
}
