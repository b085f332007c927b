import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { dirname, resolve } from 'node:path';

/**
 * Makes stack traces name the sources `file` was built from (src/…/*.ts) through `file.map`,
 * read at the first trace formatted. Node maps frames itself under --enable-source-maps, but not
 * those of code compiled with vm.Script, which is how the bundle runs (with a code cache). Frames
 * elsewhere, or in parts of `file` the map leaves out (the packages), are V8's own text.
 */
export function mapStackFramesOf(file: string): void {
  let map: SourceMap | null | undefined;
  const mapOf = (): SourceMap | null => {
    if (map === undefined) {
      try {
        map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as SourceMapPayload);
      } catch {
        map = null;
      }
    }
    return map;
  };
  const sources = dirname(file);
  const mapped = (frame: NodeJS.CallSite): string => {
    const text = frame.toString();
    const line = frame.getLineNumber();
    const column = frame.getColumnNumber();
    if (frame.getFileName() !== file || line === null || column === null) return text;
    const entry = mapOf()?.findEntry(line - 1, column - 1);
    if (!entry || !('originalSource' in entry) || !entry.originalSource) return text;
    const original = `${resolve(sources, entry.originalSource)}:${String(entry.originalLine + 1)}:${String(entry.originalColumn + 1)}`;
    return text.replace(`${file}:${String(line)}:${String(column)}`, original);
  };
  Error.prepareStackTrace = (error: Error, frames: NodeJS.CallSite[]) =>
    [headerOf(error), ...frames.map((frame) => `    at ${mapped(frame)}`)].join('\n');
}

/** What V8 puts above the frames: `name: message`. */
function headerOf(error: Error): string {
  try {
    return Error.prototype.toString.call(error);
  } catch {
    return 'Error';
  }
}
