import { AndFilter, EqualityFilter, type Filter, OrFilter } from 'ldapts';

/**
 * Filters are built from ldapts filter objects, never by string concatenation: values travel as
 * BER octet strings, so `*`, `(`, `)`, `\` and NUL in a name cannot change the filter, and the
 * string form (`toString()`, for logs) is escaped per RFC 4515.
 */
export function equalsAny(attribute: string, values: readonly (string | Buffer)[]): Filter {
  return anyOf(...values.map((value) => equals(attribute, value)));
}

export function allOf(...filters: Filter[]): Filter {
  return new AndFilter({ filters });
}

/** An OR of the given filters; a single filter stands for itself. */
export function anyOf(...filters: Filter[]): Filter {
  return filters.length === 1 ? filters[0]! : new OrFilter({ filters });
}

export function equals(attribute: string, value: string | Buffer): Filter {
  return new EqualityFilter({ attribute, value });
}
