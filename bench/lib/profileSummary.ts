import { readFile } from 'node:fs/promises';

/** The parts of a V8 .cpuprofile the summary reads. */
interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: {
      readonly functionName: string;
      readonly url: string;
      readonly lineNumber: number;
    };
  }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileSummary {
  readonly sampled_ms: number;
  /** Share of the busy (not idle) time by where the code lives. */
  readonly by_area: Record<string, number>;
  /** The functions with the most self time, share of busy time. */
  readonly top_frames: { frame: string; share: number }[];
}

/** Self time per function and per area (package, paymirror folder, node internals, GC). */
export async function summarizeProfile(path: string, top = 25): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const selfByFrame = new Map<string, number>();
  const selfByArea = new Map<string, number>();
  let busy = 0;
  let total = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    total += delta;
    const frame = byId.get(id);
    if (!frame || frame.functionName === '(idle)') return;
    busy += delta;
    const name = `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
    selfByFrame.set(name, (selfByFrame.get(name) ?? 0) + delta);
    const area = areaOf(frame.functionName, frame.url);
    selfByArea.set(area, (selfByArea.get(area) ?? 0) + delta);
  });
  const share = (value: number) => Math.round((value / Math.max(busy, 1)) * 1000) / 10;
  return {
    sampled_ms: Math.round(total / 1000),
    by_area: Object.fromEntries(
      [...selfByArea.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, share(v)]),
    ),
    top_frames: [...selfByFrame.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([frame, value]) => ({ frame, share: share(value) })),
  };
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + '/node_modules/'.length);
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + 1);
  const bench = url.indexOf('/bench/');
  if (bench >= 0) return url.slice(bench + 1);
  return url.replace(/^file:\/\//, '');
}

function areaOf(functionName: string, url: string): string {
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(program)') return 'V8/native (program)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? 'node_modules');
  }
  const src = /\/(?:dist|src)\/([^/]+)\//.exec(url);
  if (src) return `paymirror ${src[1]}`;
  if (url.startsWith('node:') || url === '') return 'node internals';
  return shortUrl(url);
}
