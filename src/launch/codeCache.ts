import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

/**
 * The file holding V8's code cache of `bundle` for one command. V8 checks that a cache was made
 * by the same V8 with the same flags, but of the source only its length: the bundle's size and
 * mtime in the name keep a rebuilt bundle from being run with the bytecode of the last one. The
 * command's words (and its `--role`) name it because each command compiles its own functions:
 * `start --role ingress` and `start --role worker` share little beyond the top level.
 */
export function codeCacheFile(dir: string, bundle: string, args: readonly string[]): string {
  const { size, mtimeMs } = statSync(bundle);
  const words: string[] = [];
  for (const arg of args) {
    if (words.length === 3 || !/^[a-z][a-z-]{0,31}$/.test(arg)) break;
    words.push(arg);
  }
  const role = roleOf(args);
  const command = [...words, ...(role ? [role] : [])].join('.') || 'none';
  return join(dir, `${command}.v8-${process.versions.v8}.${size}-${Math.trunc(mtimeMs)}.bin`);
}

function roleOf(args: readonly string[]): string | undefined {
  const at = args.findIndex((arg) => arg === '--role' || arg.startsWith('--role='));
  const value = at < 0 ? undefined : (args[at]?.split('=')[1] ?? args[at + 1]);
  return value && /^[a-z,]{1,64}$/.test(value) ? value.replaceAll(',', '+') : undefined;
}

/**
 * Compiles `source` with the code cache in `cacheFile` when there is one V8 accepts. Without
 * one, the process writes it as it exits: by then V8 has compiled the functions the command ran,
 * which a cache made right after compiling would not hold (it holds only the eagerly compiled
 * top level). A cache that cannot be written (a read-only install) is done without.
 */
export function compileWithCodeCache(source: string, filename: string, cacheFile: string): Script {
  const cachedData = readIfThere(cacheFile);
  const script = new Script(source, {
    filename,
    lineOffset: -1,
    ...(cachedData ? { cachedData } : {}),
  });
  if (!cachedData || script.cachedDataRejected === true) {
    process.once('exit', () => writeCodeCache(script, cacheFile));
  }
  return script;
}

function readIfThere(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

function writeCodeCache(script: Script, file: string): void {
  const partial = `${file}.${String(process.pid)}.partial`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(partial, script.createCachedData());
    renameSync(partial, file);
  } catch {
    try {
      rmSync(partial, { force: true });
    } catch {
      // Nothing was written where nothing can be.
    }
  }
}
