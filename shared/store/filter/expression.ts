/**
 * Collects ExpressionAttributeNames and ExpressionAttributeValues so that no user input ever
 * becomes expression text: every name and value is a placeholder.
 */
export class ExpressionBuilder {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  private readonly nameIds = new Map<string, string>();
  private valueCount = 0;

  name(attribute: string): string {
    let placeholder = this.nameIds.get(attribute);
    if (!placeholder) {
      placeholder = `#n${this.nameIds.size}`;
      this.nameIds.set(attribute, placeholder);
      this.names[placeholder] = attribute;
    }
    return placeholder;
  }

  path(segments: ReadonlyArray<string>): string {
    return segments.map((s) => this.name(s)).join('.');
  }

  value(value: unknown): string {
    const placeholder = `:v${this.valueCount++}`;
    this.values[placeholder] = value;
    return placeholder;
  }

  /** A builder that starts with this one's placeholders: what is added to it leaves this one as it is. */
  copy(): ExpressionBuilder {
    const copy = new ExpressionBuilder();
    Object.assign(copy.names, this.names);
    Object.assign(copy.values, this.values);
    for (const [attribute, placeholder] of this.nameIds) copy.nameIds.set(attribute, placeholder);
    copy.valueCount = this.valueCount;
    return copy;
  }

  /** The placeholders for a command input; DynamoDB refuses empty maps, so they are left out. */
  attributes(): { ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> } {
    return {
      ...(this.nameIds.size > 0 ? { ExpressionAttributeNames: this.names } : {}),
      ...(this.valueCount > 0 ? { ExpressionAttributeValues: this.values } : {}),
    };
  }
}
