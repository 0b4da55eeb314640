#!/usr/bin/env node
// Makes sure a real kube-apiserver and etcd are built for the `kube` test project (docs/KUBE_TESTING.md): both
// are compiled from Go modules pinned in tools/kube (k8s.io/kubernetes, staging modules replaced by their
// releases) and tools/etcd (etcd server 3.6, kept apart because Kubernetes requires etcd 3.7 modules), into a
// cache outside the checkout. A stamp of the four go.mod/go.sum files decides whether a rebuild is due; a cold
// kube-apiserver build takes 12–16 minutes on 2 cores, a rebuild with a warm Go build cache about a minute.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const KUBE_MODULE = join(ROOT, 'tools', 'kube');
const ETCD_MODULE = join(ROOT, 'tools', 'etcd');
const STAMP_INPUTS = [KUBE_MODULE, ETCD_MODULE].flatMap((dir) => [join(dir, 'go.mod'), join(dir, 'go.sum')]);

/** The version `module` is required at in the go.mod of `dir`. */
function required(dir, module) {
  const text = readFileSync(join(dir, 'go.mod'), 'utf8');
  const escaped = module.replaceAll('.', '\\.').replaceAll('/', '\\/');
  const match = text.match(new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\S+)`, 'm'));
  if (!match) throw new Error(`trainwatch: ${join(dir, 'go.mod')} does not require ${module}`);
  return match[1];
}

export const KUBERNETES_VERSION = required(KUBE_MODULE, 'k8s.io/kubernetes');
export const ETCD_VERSION = required(ETCD_MODULE, 'go.etcd.io/etcd/server/v3');

const BINARIES = [
  { name: 'kube-apiserver', module: KUBE_MODULE, pkg: 'k8s.io/kubernetes/cmd/kube-apiserver' },
  { name: 'etcd', module: ETCD_MODULE, pkg: 'go.etcd.io/etcd/server/v3' },
];

/** Where the binaries live: $TRAINWATCH_KUBE_CACHE, else ~/.cache/trainwatch/kube-<k8s version>-<etcd version>. */
export function kubeCacheDir() {
  return (
    process.env.TRAINWATCH_KUBE_CACHE ??
    join(homedir(), '.cache', 'trainwatch', `kube-${KUBERNETES_VERSION}-${ETCD_VERSION}`)
  );
}

/** The paths the binaries are built to (they may not exist yet: see ensureKube). */
export function kubeBinaries() {
  const dir = kubeCacheDir();
  return {
    dir,
    kubeApiserver: join(dir, 'kube-apiserver'),
    etcd: join(dir, 'etcd'),
    stamp: join(dir, 'stamp'),
  };
}

function stampValue() {
  const hash = createHash('sha256');
  for (const file of STAMP_INPUTS) hash.update(`${file.slice(ROOT.length)}\0`).update(readFileSync(file));
  return hash.digest('hex');
}

/** True when both binaries exist and were built from the go.mod/go.sum files as they are now. */
export function kubeBuilt() {
  const { kubeApiserver, etcd, stamp } = kubeBinaries();
  return (
    existsSync(kubeApiserver) &&
    existsSync(etcd) &&
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8').trim() === stampValue()
  );
}

const minutes = (ms) => `${(ms / 60_000).toFixed(1)} min`;

/**
 * Builds kube-apiserver and etcd into kubeCacheDir() unless the stamp says they are current; returns their
 * paths. Throws an Error with the way to build them by hand when `go` is missing or a build fails.
 */
export function ensureKube({ log = console.log } = {}) {
  const paths = kubeBinaries();
  if (kubeBuilt()) return paths;
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.status !== 0) {
    throw new Error(
      'trainwatch: `go` is not on PATH; install Go >= 1.26 to build kube-apiserver and etcd for the kube tests',
    );
  }
  mkdirSync(paths.dir, { recursive: true });
  rmSync(paths.stamp, { force: true });
  const started = Date.now();
  log(
    `trainwatch: building kube-apiserver ${KUBERNETES_VERSION} and etcd ${ETCD_VERSION} into ${paths.dir} ` +
      `with ${go.stdout.trim()} (a cold build takes 12–16 min on 2 cores)...`,
  );
  for (const { name, module, pkg } of BINARIES) {
    const t0 = Date.now();
    const out = join(paths.dir, name);
    const partial = `${out}.partial`;
    log(
      `trainwatch: go build -trimpath -buildvcs=false -o ${partial} ${pkg}   (in ${module.slice(ROOT.length + 1)})`,
    );
    const built = spawnSync('go', ['build', '-trimpath', '-buildvcs=false', '-o', partial, pkg], {
      cwd: module,
      stdio: 'inherit',
    });
    if (built.status !== 0) {
      rmSync(partial, { force: true });
      throw new Error(
        `trainwatch: building ${name} failed (${built.error?.message ?? `exit ${built.status}`}); ` +
          `see the Go output above, or run: cd ${module} && go build -trimpath -buildvcs=false -o ${out} ${pkg}`,
      );
    }
    renameSync(partial, out);
    log(`trainwatch: built ${name} in ${minutes(Date.now() - t0)}`);
  }
  writeFileSync(paths.stamp, `${stampValue()}\n`);
  log(`trainwatch: kube binaries ready in ${minutes(Date.now() - started)}`);
  return paths;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const started = Date.now();
    const { kubeApiserver, etcd } = ensureKube();
    console.log(
      `trainwatch: ${kubeApiserver} and ${etcd} are current (checked in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
