// Short lowercase messages for zod's generic issues; field-specific ones are set in fields.ts and schema.ts.
import type * as z from 'zod';

const EXPECTED: Record<string, string> = {
  string: 'must be a string',
  number: 'must be a number',
  int: 'must be an integer',
  boolean: 'must be true or false',
  array: 'must be a list',
  object: 'must be a mapping (key: value lines)',
};

export function issueMessage(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.input === undefined && issue.code === 'invalid_type') return 'required';
  switch (issue.code) {
    case 'invalid_type':
      // YAML reads 2024 or yes as number or boolean; quoting keeps them strings.
      if (issue.expected === 'string' && (typeof issue.input === 'number' || typeof issue.input === 'boolean')) {
        return `must be a string (write it in quotes: "${String(issue.input)}")`;
      }
      return EXPECTED[issue.expected] ?? `must be of type ${issue.expected}`;
    case 'invalid_value':
      return `must be one of: ${issue.values.map(String).join(', ')}`;
    case 'unrecognized_keys':
      return 'unknown key';
    default:
      return undefined;
  }
}
