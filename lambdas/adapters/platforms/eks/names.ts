// Names and label selectors are checked against Kubernetes' own syntax before they go into a URL: they come
// from configuration and from what a run reported, and a `/`, `?`, `&` or `..` in one must never reach a path
// or a query. What passes is still URL-encoded where it is used.

import type { LabelSelector } from '../../../core/remediation/eks/types.js';
import { KubeInputError } from './errors.js';

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

function refuse(what: string, value: unknown, rule: string): never {
  throw new KubeInputError(`${what} ${JSON.stringify(value)} is not ${rule}`);
}

/** An RFC 1123 label (namespaces, container names): ≤ 63 of [a-z0-9-], alphanumeric at both ends. */
export function dnsLabel(what: string, value: unknown): string {
  if (typeof value !== 'string' || value.length > 63 || !LABEL.test(value))
    refuse(what, value, 'an RFC 1123 label (lower-case letters, digits and -, at most 63)');
  return value;
}

/** An RFC 1123 subdomain (pod, node and job names): dot-separated labels, ≤ 253 in all. */
export function dnsSubdomain(what: string, value: unknown): string {
  if (typeof value !== 'string' || value.length > 253 || !value.split('.').every((part) => LABEL.test(part)))
    refuse(what, value, 'an RFC 1123 subdomain (lower-case letters, digits, - and ., at most 253)');
  return value;
}

/** A label key: an optional DNS-subdomain prefix and `/`, then a name of ≤ 63 of [A-Za-z0-9-_.]. */
export function labelKey(value: unknown): string {
  if (typeof value !== 'string') return refuse('label key', value, 'a string');
  const slash = value.indexOf('/');
  const name = slash < 0 ? value : value.slice(slash + 1);
  if (slash >= 0) dnsSubdomain('label key prefix', value.slice(0, slash));
  if (name.length > 63 || !LABEL_NAME.test(name))
    refuse('label key', value, 'a label key ([prefix/]name, the name at most 63 of A-Z a-z 0-9 - _ .)');
  return value;
}

/** A label value: empty, or ≤ 63 of [A-Za-z0-9-_.], alphanumeric at both ends. */
export function labelValue(value: unknown): string {
  if (typeof value !== 'string' || (value !== '' && (value.length > 63 || !LABEL_NAME.test(value))))
    refuse(
      'label value',
      value,
      'a label value (at most 63 of A-Z a-z 0-9 - _ ., alphanumeric at both ends)',
    );
  return value;
}

/** Labels that must all equal the given values: `{ 'training.kubeflow.org/job-name': 'llama' }`. */
export type { LabelSelector };

/**
 * The selector as the API takes it (`k1=v1,k2=v2`), each key and value checked. It must have at least one
 * requirement with a non-empty value: an empty selector matches every pod in the namespace.
 */
export function selectorText(selector: LabelSelector): string {
  const entries = Object.entries(selector);
  if (entries.length === 0) refuse('label selector', selector, 'a selector: it has no requirement');
  if (entries.every(([, v]) => v === ''))
    refuse('label selector', selector, 'a narrow selector: every value is empty');
  return entries.map(([k, v]) => `${labelKey(k)}=${labelValue(v)}`).join(',');
}
