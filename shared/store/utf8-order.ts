/** DynamoDB's string order: by the UTF-8 bytes, not JavaScript's UTF-16 code units. */
export const utf8Order = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
