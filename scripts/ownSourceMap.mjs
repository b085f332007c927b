// The source map scripts/bundle.mjs leaves beside the bundle.
import { readFile, writeFile } from 'node:fs/promises';
import { decode, encode } from '@jridgewell/sourcemap-codec';

/**
 * Leaves in the source map only what maps to paymirror's own sources. The launcher reads and
 * decodes the map at the first stack trace it formats (src/launch/mappedStacks.ts): with the
 * 1,088 sources of the bundle that cost about 95 MB of RSS after the first error (a failing CLI
 * command peaked at 177 MB against 81 without source maps); kept to the 180 files of src/, 16 MB.
 * Where the packages' code follows paymirror's, one segment with no source marks where its
 * mappings end, so that a package's frame keeps the bundle's line and column and its function
 * name instead of borrowing the position of the nearest paymirror line before it.
 */
export async function keepOwnMappings(path) {
  const map = JSON.parse(await readFile(path, 'utf8'));
  const sources = new Renumbering();
  const names = new Renumbering();
  let inOwnCode = false;
  const lines = decode(map.mappings).map((segments) =>
    segments.flatMap((segment) => {
      if (segment.length === 1 || map.sources[segment[1]].includes('node_modules/')) {
        if (!inOwnCode) return [];
        inOwnCode = false;
        return [[segment[0]]];
      }
      inOwnCode = true;
      const [column, source, line, sourceColumn, name] = segment;
      const kept = [column, sources.of(map.sources, source), line, sourceColumn];
      return [name === undefined ? kept : [...kept, names.of(map.names, name)]];
    }),
  );
  const kept = { sources: sources.values, names: names.values, mappings: encode(lines) };
  await writeFile(path, JSON.stringify({ ...map, ...kept }));
}

/** The entries of a list that are still used, under their new indexes. */
class Renumbering {
  values = [];
  #indexes = new Map();

  of(list, index) {
    let kept = this.#indexes.get(index);
    if (kept === undefined) {
      kept = this.values.push(list[index]) - 1;
      this.#indexes.set(index, kept);
    }
    return kept;
  }
}
