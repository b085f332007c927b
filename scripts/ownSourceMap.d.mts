/** Leaves in the source map at `path` only what maps to paymirror's own sources (not node_modules/). */
export function keepOwnMappings(path: string): Promise<void>;
