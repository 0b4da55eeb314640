// Lists come in pages: `limit` items, then a `continue` token for the next page until none is left.
import type { Kube, KubeRequest } from './kubeApi.js';

/** Items per page: a job's pods fit in one; a namespace's events may take a few. */
export const PAGE_SIZE = 500;

/** Every item of a list, page after page. */
export async function listAll<T>(kube: Kube, path: string, query: KubeRequest['query'] = {}): Promise<T[]> {
  const items: T[] = [];
  let next: string | undefined;
  do {
    const page = await kube.json<{ items?: T[]; metadata?: { continue?: string } }>({
      method: 'GET',
      path,
      query: { ...query, limit: PAGE_SIZE, continue: next },
    });
    items.push(...(page.items ?? []));
    next = page.metadata?.continue || undefined;
  } while (next);
  return items;
}
