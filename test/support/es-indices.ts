// Deletes the Elasticsearch indices a test created under its own prefix. The cluster refuses wildcards in a
// delete (action.destructive_requires_name), so the names are listed first.
import type { Client } from '@elastic/elasticsearch';

export async function deleteIndicesStartingWith(es: Client, prefix: string): Promise<void> {
  const indices = Object.keys(await es.indices.get({ index: `${prefix}*`, allow_no_indices: true, ignore_unavailable: true }));
  if (indices.length > 0) await es.indices.delete({ index: indices });
}
