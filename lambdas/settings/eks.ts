import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../core/base/errors.js';
import { EKS_CLUSTER, K8S_LABEL } from '../core/protocol/platform.js';
import { GANG_RESTARTS, type GangRestart } from '../core/remediation/eks/place.js';
import { type Base, type Env, read } from './define.js';

/** The EKS clusters remediation may act in (docs/EKS.md, "Configuration"): where each is and how it is reached. */

/** One cluster as the configuration gives it, checked. */
export interface EksClusterSetting {
  /** The cluster's name in EKS (signed into every token; what metadata.json's `platform.cluster` names). */
  readonly name: string;
  /** The API server, `https://….eks.amazonaws.com` (`aws eks describe-cluster`'s `cluster.endpoint`). */
  readonly endpoint: string;
  /**
   * Base64 of the cluster's CA certificate in PEM (`cluster.certificateAuthority.data`): given as itself
   * (local mode, tests). Exactly one of this and `certificateAuthorityParam`.
   */
  readonly certificateAuthority?: string;
  /**
   * The SSM parameter (String) holding that CA, read on the cluster's first use: how the stack gives it, since
   * CAs in the function's 4 KB environment would fit one cluster. Exactly one of this and `certificateAuthority`.
   */
  readonly certificateAuthorityParam?: string;
  /** The cluster's region; unset: the function's own. */
  readonly region?: string;
  /** The namespaces remediation may act in there; a run in any other is refused. */
  readonly namespaces: readonly string[];
  /** The Kubernetes group the stack's access entry maps the remediation role to (docs/eks-rbac.yaml binds it). */
  readonly group: string;
}

/** The group docs/eks-rbac.yaml binds. */
export const DEFAULT_EKS_GROUP = 'trainwatch:remediation';

const KEYS = [
  'name',
  'endpoint',
  'certificateAuthority',
  'certificateAuthorityParam',
  'region',
  'namespaces',
  'group',
] as const;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d$/;
// Kubernetes takes any string as a group; this keeps to what an RBAC subject and an access entry show plainly.
const GROUP = /^[A-Za-z0-9]([A-Za-z0-9:._@-]{0,98}[A-Za-z0-9])?$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
// SSM's rule: letters, digits and _ . - /, at most 1011 characters; a path starts with / and has no empty step.
const SSM_PARAM = /^(\/[A-Za-z0-9_.-]+)+$|^[A-Za-z0-9_.-]+$/;

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

function endpointOf(v: unknown): string | undefined {
  const s = text(v);
  if (!s || /[?#\s]/.test(s)) return undefined;
  try {
    // A host (and port) only: the requests' paths are the API's own.
    const u = new URL(s);
    const bare = u.protocol === 'https:' && !u.username && !u.password && u.pathname === '/';
    return bare ? s.replace(/\/$/, '') : undefined;
  } catch {
    return undefined;
  }
}

function bad(where: string, problem: string): never {
  throw new Error(`${where}: ${problem}`);
}

/** Whether `v` is base64 of a PEM certificate (what `cluster.certificateAuthority.data` holds). */
export function isPemBase64(v: string): boolean {
  return (
    BASE64.test(v) && Buffer.from(v, 'base64').toString('latin1').includes('-----BEGIN CERTIFICATE-----')
  );
}

/** The CA, given as itself or as an SSM parameter's name: exactly one of the two. */
function certificateAuthorityOf(
  c: Record<string, unknown>,
  where: string,
): Pick<EksClusterSetting, 'certificateAuthority' | 'certificateAuthorityParam'> {
  const given = c.certificateAuthority !== undefined;
  const param = c.certificateAuthorityParam !== undefined;
  if (given === param)
    bad(
      where,
      given
        ? 'give certificateAuthority or certificateAuthorityParam, not both'
        : 'needs certificateAuthority (the CA itself) or certificateAuthorityParam (an SSM parameter holding it)',
    );
  if (param) {
    const name = text(c.certificateAuthorityParam);
    if (!name || name.length > 1011 || !SSM_PARAM.test(name))
      bad(
        where,
        `certificateAuthorityParam ${JSON.stringify(c.certificateAuthorityParam)} is not an SSM parameter name (letters, digits and _ . - /)`,
      );
    return { certificateAuthorityParam: name };
  }
  const ca = text(c.certificateAuthority)?.replace(/\s+/g, '');
  if (!ca || !isPemBase64(ca))
    bad(where, 'certificateAuthority is not base64 of a PEM certificate (cluster.certificateAuthority.data)');
  return { certificateAuthority: ca };
}

/** One cluster, checked; throws an Error whose message says which field is wrong and why. */
function cluster(v: unknown, i: number): EksClusterSetting {
  let where = `cluster ${i}`;
  if (!v || typeof v !== 'object' || Array.isArray(v))
    bad(
      where,
      'must be an object { name, endpoint, certificateAuthority | certificateAuthorityParam, region?, namespaces, group? }',
    );
  const c = v as Record<string, unknown>;
  const name = text(c.name);
  if (!name || !EKS_CLUSTER.test(name))
    bad(
      where,
      `name ${JSON.stringify(c.name ?? null)} is not an EKS cluster name (letters, digits, - and _, at most 100)`,
    );
  where = `cluster ${i} (${name})`;
  const unknown = Object.keys(c).filter((k) => !(KEYS as readonly string[]).includes(k));
  if (unknown.length)
    bad(where, `unknown key ${JSON.stringify(unknown[0])} (the keys are ${KEYS.join(', ')})`);
  const endpoint = endpointOf(c.endpoint);
  if (!endpoint)
    bad(
      where,
      `endpoint ${JSON.stringify(c.endpoint ?? null)} is not an https URL with only a host (cluster.endpoint of aws eks describe-cluster)`,
    );
  const ca = certificateAuthorityOf(c, where);
  const region = c.region === undefined ? undefined : text(c.region);
  if (c.region !== undefined && (!region || !REGION.test(region)))
    bad(where, `region ${JSON.stringify(c.region)} is not an AWS region (e.g. us-east-1)`);
  if (!Array.isArray(c.namespaces) || c.namespaces.length === 0)
    bad(where, 'namespaces must list at least one namespace remediation may act in');
  const namespaces = c.namespaces as unknown[];
  const badNs = namespaces.find((n) => typeof n !== 'string' || !K8S_LABEL.test(n));
  if (badNs !== undefined)
    bad(
      where,
      `namespace ${JSON.stringify(badNs)} is not a Kubernetes namespace (lower-case letters, digits and -, at most 63)`,
    );
  const group = c.group === undefined ? DEFAULT_EKS_GROUP : text(c.group);
  if (!group || !GROUP.test(group))
    bad(
      where,
      `group ${JSON.stringify(c.group)} is not a Kubernetes group name (letters, digits and : . _ @ -)`,
    );
  if (group.startsWith('system:'))
    bad(
      where,
      `group ${JSON.stringify(group)} is one of Kubernetes' own (system:…): give trainwatch a group of its own`,
    );
  return {
    name,
    endpoint,
    ...ca,
    ...(region && { region }),
    namespaces: [...new Set(namespaces as string[])],
    group,
  };
}

/** The clusters from a parsed value (a list; empty: none); throws an Error naming the cluster and the field. */
export function checkEksClusters(value: unknown): EksClusterSetting[] {
  if (!Array.isArray(value)) throw new Error('must be a list of clusters');
  const clusters = value.map(cluster);
  const names = clusters.map((c) => c.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new Error(`cluster ${twice} is listed twice`);
  return clusters;
}

/** The EKS clusters remediation may act in, as JSON (YAML outside Lambda); unset: none. */
export function eksClusters<const O extends Base>(o: O) {
  return {
    ...o,
    kind: 'eksClusters' as const,
    parse: (env: Env): readonly EksClusterSetting[] => {
      const raw = read(env, o.env);
      if (!raw) return [];
      let value: unknown;
      try {
        value = parseYaml(raw);
      } catch (e) {
        throw new ConfigError(`${o.env} is not JSON: ${(e as Error).message}`, { name: o.env });
      }
      try {
        return checkEksClusters(value);
      } catch (e) {
        throw new ConfigError(`${o.env}: ${(e as Error).message}`, { name: o.env });
      }
    },
  };
}

/** `pods` or `suspend` (core/remediation/eks/place.ts), for `word`. */
export function gangRestart(raw: string): GangRestart | undefined {
  return (GANG_RESTARTS as readonly string[]).includes(raw) ? (raw as GangRestart) : undefined;
}
