import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { envSchema } from '../../src/config/config.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { ROLES } from '../../src/runtime/roles.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- manifests are untyped YAML */
type Doc = any;

const DIR = 'deploy/kubernetes';
const docs: { file: string; doc: Doc }[] = readdirSync(DIR)
  .filter((file) => file.endsWith('.yaml'))
  .flatMap((file) =>
    parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((parsed) => {
      expect(parsed.errors, file).toEqual([]);
      return { file, doc: parsed.toJS() as Doc };
    }),
  );
const ofKind = (kind: string) => docs.filter(({ doc }) => doc?.kind === kind).map(({ doc }) => doc);
const workloads = [...ofKind('Deployment'), ...ofKind('StatefulSet')];
const component = (doc: Doc): string =>
  doc.spec.template.metadata.labels['app.kubernetes.io/component'];
const workloadOf = (role: string) => workloads.find((doc) => component(doc) === role);
const SECRETS = [
  'DATABASE_URL',
  'REPORTS_DATABASE_URL',
  'POSTBACK_SECRETS',
  'WEBHOOK_TOKENS',
  'GATEWAY_PUBLIC_KEY',
  'GATEWAY_PRIVATE_KEY',
  'ADMIN_TOKEN',
  'REDIS_PASSWORD',
];

describe('deploy/kubernetes', () => {
  it('has one workload per role, each running that role', () => {
    expect(workloads.map(component).sort()).toEqual([...ROLES].sort());
    for (const role of ROLES) {
      const [container] = workloadOf(role).spec.template.spec.containers;
      expect(container.args, role).toEqual(expect.arrayContaining(['start', '--role', role]));
    }
  });

  it.each(ROLES)('%s: probes on /healthz and /readyz, resources, a locked-down context', (role) => {
    const pod = workloadOf(role).spec.template.spec;
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    for (const container of pod.containers) {
      const probes = [container.startupProbe, container.readinessProbe, container.livenessProbe];
      expect(container.readinessProbe, 'readiness').toBeDefined();
      expect(container.livenessProbe?.httpGet?.path, 'liveness').toBe('/healthz');
      const paths = probes.flatMap((probe) => (probe ? [probe.httpGet.path] : []));
      expect(paths).toEqual(expect.arrayContaining(['/healthz', '/readyz']));
      for (const kind of ['requests', 'limits']) {
        expect(container.resources[kind].cpu, `${kind}.cpu`).toBeDefined();
        expect(container.resources[kind].memory, `${kind}.memory`).toBeDefined();
      }
      expect(container.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
    }
  });

  it('a PodDisruptionBudget selects every workload', () => {
    for (const workload of workloads) {
      const labels = workload.spec.template.metadata.labels;
      const budget = ofKind('PodDisruptionBudget').find((pdb) =>
        Object.entries(pdb.spec.selector.matchLabels).every(([k, v]) => labels[k] === v),
      );
      expect(budget, workload.metadata.name).toBeDefined();
    }
  });

  it('the ingress is a StatefulSet whose spool is a persistent volume, scaled on CPU', () => {
    const ingress = workloadOf('ingress');
    expect(ingress.kind).toBe('StatefulSet');
    const [container] = ingress.spec.template.spec.containers;
    const spoolDir = container.env.find((e: Doc) => e.name === 'SPOOL_DIR')?.value;
    expect(spoolDir).toBeTruthy();
    const claims = ingress.spec.volumeClaimTemplates.map((claim: Doc) => claim.metadata.name);
    const mount = container.volumeMounts.find((m: Doc) => m.mountPath === spoolDir);
    expect(claims).toContain(mount?.name);
    const [hpa] = ofKind('HorizontalPodAutoscaler');
    expect(hpa.spec.scaleTargetRef).toMatchObject({
      kind: 'StatefulSet',
      name: ingress.metadata.name,
    });
    expect(hpa.spec.metrics[0].resource.name).toBe('cpu');
  });

  it("opens, at every workload's maximum and a rollout's surge, fewer connections than Postgres's default max_connections", () => {
    // 100 less superuser_reserved_connections (3), Postgres's defaults; PgBouncer's
    // max_client_conn is 100 by default too.
    const available = 100 - 3;
    const [config] = ofKind('ConfigMap');
    const poolOf = (workload: Doc): number => {
      const env = workload.spec.template.spec.containers[0].env ?? [];
      const own = env.find((e: Doc) => e.name === 'DB_POOL_MAX')?.value;
      return envSchema.shape.DB_POOL_MAX.parse(own ?? config.data.DB_POOL_MAX);
    };
    const scalers = [...ofKind('HorizontalPodAutoscaler'), ...ofKind('ScaledObject')];
    const mostOf = (workload: Doc): number => {
      const scaler = scalers.find((s) => s.spec.scaleTargetRef.name === workload.metadata.name);
      const most =
        scaler?.spec.maxReplicas ?? scaler?.spec.maxReplicaCount ?? workload.spec.replicas;
      // A Deployment rolls with maxSurge 25 % by default; a StatefulSet replaces pods one by one.
      return workload.kind === 'Deployment' ? most + Math.ceil(most / 4) : most;
    };
    const fleet = workloads.reduce((sum, workload) => sum + mostOf(workload) * poolOf(workload), 0);
    // The migrate Job holds one connection at a time (src/db/migrate.ts); a CLI command, two.
    expect(fleet + 1 + 2).toBeLessThanOrEqual(available);
  });

  it('workers scale with KEDA on a queue-depth metric paymirror exports', async () => {
    const [scaled] = ofKind('ScaledObject');
    expect(scaled.spec.scaleTargetRef.name).toBe(workloadOf('worker').metadata.name);
    const [trigger] = scaled.spec.triggers;
    expect(trigger.type).toBe('prometheus');
    const exported = (await createMetrics().registry.getMetricsAsJSON()).map((m) => m.name);
    const named = [...String(trigger.metadata.query).matchAll(/paymirror_[a-z_]+/g)].map(
      (m) => m[0],
    );
    expect(named.length).toBeGreaterThan(0);
    for (const name of named) expect(exported).toContain(name);
  });

  it('scrapes /metrics on the admin listener, which no Service exposes', () => {
    const [config] = ofKind('ConfigMap');
    expect(config.data).toMatchObject({ METRICS_HOST: '0.0.0.0', PORT: '3000' });
    const metricsPort = Number(config.data.METRICS_PORT);
    expect(metricsPort).not.toBe(Number(config.data.PORT));
    for (const workload of workloads) {
      const name = workload.metadata.name;
      const annotations = workload.spec.template.metadata.annotations;
      expect(annotations['prometheus.io/port'], name).toBe(String(metricsPort));
      const ports = workload.spec.template.spec.containers[0].ports;
      expect(ports, name).toEqual(
        expect.arrayContaining([{ name: 'metrics', containerPort: metricsPort }]),
      );
    }
    for (const service of ofKind('Service')) {
      for (const port of service.spec.ports) {
        expect([port.port, port.targetPort], service.metadata.name).not.toContain(metricsPort);
        expect(port.targetPort, service.metadata.name).not.toBe('metrics');
      }
    }
  });

  it('mounts no service-account token in any pod (paymirror never calls the Kubernetes API)', () => {
    const pods = [...workloads, ...ofKind('Job')];
    expect(pods.length).toBeGreaterThan(ROLES.length - 1);
    for (const pod of pods) {
      expect(pod.spec.template.spec.automountServiceAccountToken, pod.metadata.name).toBe(false);
    }
  });

  describe('network policies', () => {
    const policies = ofKind('NetworkPolicy');
    const selects = (policy: Doc, labels: Record<string, string>) =>
      Object.entries(policy.spec.podSelector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
    /** Every (port, peer) a pod with these labels accepts connections on, across the policies. */
    const admitted = (labels: Record<string, string>) =>
      policies
        .filter((policy) => selects(policy, labels))
        .flatMap((policy) =>
          (policy.spec.ingress ?? []).flatMap((rule: Doc) =>
            (rule.ports ?? [{ port: 'any' }]).flatMap((port: Doc) =>
              (rule.from ?? [{ anyone: true }]).map((peer: Doc) => ({ port: port.port, peer })),
            ),
          ),
        );
    const CONTROLLER = {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': expect.any(String) } },
      podSelector: { matchLabels: { 'app.kubernetes.io/name': expect.any(String) } },
    };

    it('select every pod and restrict what reaches it (policyTypes Ingress)', () => {
      for (const pod of [...workloads, ...ofKind('Job')]) {
        const labels = pod.spec.template.metadata.labels;
        const mine = policies.filter((policy) => selects(policy, labels));
        expect(mine.length, pod.metadata.name).toBeGreaterThan(0);
        for (const policy of mine) expect(policy.spec.policyTypes).toContain('Ingress');
      }
    });

    it('admit the public port from the ingress controller only, on the ingress pods only', () => {
      const ingressLabels = workloadOf('ingress').spec.template.metadata.labels;
      const ingressPorts = admitted(ingressLabels);
      const publicPeers = ingressPorts.filter(({ port }) => port === 'http');
      expect(publicPeers.length).toBeGreaterThan(0);
      for (const { peer } of publicPeers) expect(peer).toEqual(CONTROLLER);
      for (const role of ROLES.filter((r) => r !== 'ingress')) {
        const ports = admitted(workloadOf(role).spec.template.metadata.labels);
        expect(
          ports.map(({ port }) => port),
          role,
        ).not.toContain('http');
      }
    });

    it('admit the admin port from Prometheus only, and nothing else from anyone', () => {
      const controllerPeers = new Set<string>();
      const prometheusPeers = new Set<string>();
      for (const pod of [...workloads, ...ofKind('Job')]) {
        for (const { port, peer } of admitted(pod.spec.template.metadata.labels)) {
          expect(['http', 'metrics'], `${pod.metadata.name}: port ${port}`).toContain(port);
          expect(peer, `${pod.metadata.name}: a peer without selectors admits anyone`).toEqual(
            CONTROLLER,
          );
          (port === 'http' ? controllerPeers : prometheusPeers).add(JSON.stringify(peer));
        }
      }
      expect(prometheusPeers.size).toBe(1);
      // The admin port and the public port admit different peers (Prometheus, the controller).
      for (const peer of prometheusPeers) expect(controllerPeers).not.toContain(peer);
    });

    it('name ports every workload declares, and namespaces and labels that the README explains', () => {
      const readme = readFileSync(join(DIR, 'README.md'), 'utf8');
      for (const policy of policies) {
        for (const rule of policy.spec.ingress) {
          for (const port of rule.ports) expect(['http', 'metrics']).toContain(port.port);
          for (const peer of rule.from) {
            expect(readme).toContain(
              peer.namespaceSelector.matchLabels['kubernetes.io/metadata.name'],
            );
            expect(readme).toContain(peer.podSelector.matchLabels['app.kubernetes.io/name']);
          }
        }
      }
      for (const workload of workloads) {
        const names = workload.spec.template.spec.containers[0].ports.map((p: Doc) => p.name);
        expect(names, workload.metadata.name).toEqual(expect.arrayContaining(['http', 'metrics']));
      }
    });
  });

  it('holds no secret: only references to the Secret, and only known settings', () => {
    expect(ofKind('Secret')).toEqual([]);
    // bin/paymirror's runtime variables (docs/scaling.md, "Runtime flags") are settings too.
    const runtime = readFileSync('bin/paymirror', 'utf8').match(
      /\b(PAYMIRROR_\w+|MALLOC_ARENA_MAX)\b/g,
    );
    const known = [...Object.keys(envSchema.shape), ...(runtime ?? [])];
    for (const config of ofKind('ConfigMap')) {
      for (const name of Object.keys(config.data)) {
        expect(known, name).toContain(name);
        expect(SECRETS, name).not.toContain(name);
      }
    }
    for (const workload of [...workloads, ...ofKind('Job')]) {
      for (const container of workload.spec.template.spec.containers) {
        for (const env of container.env ?? []) {
          expect(SECRETS, `${workload.metadata.name}: ${env.name}`).not.toContain(env.name);
        }
        expect(container.envFrom).toEqual(
          expect.arrayContaining([{ secretRef: { name: 'paymirror-secrets' } }]),
        );
      }
    }
  });
});
