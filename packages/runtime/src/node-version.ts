// Imported first by every entry point (the apps' main.ts, scripts/*.ts, bench/run.ts), before any
// other module loads: on an older Node the first symptom would otherwise be a crash deep inside
// start-up (`TypeError: setSourceMapsSupport is not a function` on Node 20). Written so that it
// runs on any Node (no syntax or API newer than Node 12), and ends the process with one line that
// says what to do. MIN_NODE matches `engines.node` of the root package.json
// (test/structure/node-version.test.ts keeps them equal).
export const MIN_NODE = { major: 24, minor: 11 } as const;

/** The line to print when `version` (like process.version) is older than MIN_NODE, else undefined. */
export function nodeTooOld(version: string): string | undefined {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  if (major > MIN_NODE.major || (major === MIN_NODE.major && minor >= MIN_NODE.minor)) return undefined;
  return `mediagen needs Node ${MIN_NODE.major}.${MIN_NODE.minor} or newer (this is Node ${version}); run \`source scripts/ci/node-lts.sh\` in this shell, then try again`;
}

const tooOld = nodeTooOld(process.version);
if (tooOld) {
  process.stderr.write(`${tooOld}\n`);
  process.exit(1);
}
