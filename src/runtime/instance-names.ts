// Actor instance names: one instance is named after its kind, several get `#n` (`http-front#2`). The supervisor
// names the instances it runs (supervisor/topology.ts), and actors address their peers by these names.

/** A name of an instance of kind `K`. */
export type InstanceName<K extends string> = K | `${K}#${number}`;

/** The names of `count` instances of `kind`. */
export function instanceNames<K extends string>(kind: K, count: number): InstanceName<K>[] {
  if (count === 1) return [kind];
  return Array.from({ length: count }, (_, i) => `${kind}#${i + 1}` as const);
}

/** Whether `name` names an instance of `kind`: `http-front#2` does of `http-front`. */
export function isInstanceOf<K extends string>(name: string, kind: K): name is InstanceName<K> {
  const hash = name.indexOf('#');
  return (hash === -1 ? name : name.slice(0, hash)) === kind;
}
