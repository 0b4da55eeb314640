import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

// docs/EKS.md shows the RBAC the kube tests apply: the same file, quoted whole, so the two cannot drift.
const ROOT = join(import.meta.dirname, '..', '..');
const rbac = readFileSync(join(ROOT, 'docs', 'eks-rbac.yaml'), 'utf8');
const doc = readFileSync(join(ROOT, 'docs', 'EKS.md'), 'utf8');

describe('docs/eks-rbac.yaml', () => {
  it('is quoted whole in docs/EKS.md', () => {
    const blocks = [...doc.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
    expect(blocks).toContain(rbac);
    expect(doc).toContain('(eks-rbac.yaml)');
  });

  it('grants the remediation group exactly the verbs the EKS calls use, nothing cluster-wide but node reads', () => {
    const objects = parseAllDocuments(rbac).map((d) => d.toJS());
    const rules = (kind: string) =>
      objects
        .filter((o) => o.kind === kind)
        .flatMap((o) => o.rules)
        .map((r: { apiGroups: string[]; resources: string[]; verbs: string[] }) => ({
          what: `${r.apiGroups.join(',')}/${r.resources.join(',')}`,
          verbs: r.verbs,
        }));
    expect(rules('Role')).toEqual([
      { what: '/pods', verbs: ['list', 'deletecollection'] },
      { what: '/pods/log', verbs: ['get'] },
      { what: '/events', verbs: ['list'] },
      { what: 'kubeflow.org/pytorchjobs', verbs: ['get', 'patch', 'create'] },
      { what: 'ray.io/rayjobs', verbs: ['get', 'patch', 'create'] },
    ]);
    expect(rules('ClusterRole')).toEqual([{ what: '/nodes', verbs: ['get'] }]);
    for (const binding of objects.filter((o) => o.kind.endsWith('Binding')))
      expect(binding.subjects).toEqual([
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'trainwatch:remediation' },
      ]);
  });
});
