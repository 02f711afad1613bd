import type { JsonSchema } from '../../shared/openapi/json-schema';

/**
 * A TypeScript type from JSON Schema, for the subset zod's toJSONSchema writes (objects, arrays,
 * tuples, unions, enums, consts, $ref into $defs). `refName` names the alias a `#/$defs/<name>`
 * refers to; the caller writes those aliases.
 */
export function schemaToType(schema: JsonSchema | boolean, refName: (def: string) => string, indent = ''): string {
  if (schema === true) return 'unknown';
  if (schema === false) return 'never';
  const inner = `${indent}  `;
  const of = (s: unknown) => schemaToType(s as JsonSchema, refName, indent);
  if (typeof schema.$ref === 'string') return refName(schema.$ref.replace('#/$defs/', ''));
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map((v) => JSON.stringify(v)));
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (alternatives) return union(alternatives.map(of));
  if (Array.isArray(schema.allOf)) return schema.allOf.map((s) => `(${of(s)})`).join(' & ');
  if (Array.isArray(schema.type)) return union(schema.type.map((type) => of({ ...schema, type })));
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const items = schema.items as JsonSchema | boolean | undefined;
      if (Array.isArray(schema.prefixItems)) {
        const rest = items === undefined || items === false ? [] : [`...${parenthesized(of(items))}[]`];
        return `[${[...schema.prefixItems.map(of), ...rest].join(', ')}]`;
      }
      return `${parenthesized(items === undefined ? 'unknown' : of(items))}[]`;
    }
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((schema.required ?? []) as string[]);
      const members = Object.entries(properties).map(([key, property]) => {
        const doc = typeof property.description === 'string' ? `${inner}/** ${property.description.replaceAll('*/', '*\\/')} */\n` : '';
        return `${doc}${inner}${propertyKey(key)}${required.has(key) ? '' : '?'}: ${schemaToType(property, refName, inner)};\n`;
      });
      // What an open object holds beyond its properties is unknown here: a service check, not a type.
      if (schema.additionalProperties !== false) members.push(`${inner}[key: string]: unknown;\n`);
      return members.length === 0 ? 'Record<string, never>' : `{\n${members.join('')}${indent}}`;
    }
    default:
      return 'unknown';
  }
}

const union = (types: string[]) => [...new Set(types)].join(' | ') || 'never';
const parenthesized = (type: string) => (/^[\w.]+$/.test(type) ? type : `(${type})`);
const propertyKey = (key: string) => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key));
