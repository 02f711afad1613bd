/**
 * Characters as every length limit of the API counts them: Unicode code points, as a user counts
 * them and as JSON Schema's maxLength (and so the OpenAPI document and zod) counts them. An emoji
 * is one character though JavaScript's `length` counts two UTF-16 units for it; a limit counted
 * in units in one place and in code points in another stored ids that equality could not find.
 */
export function characterCount(text: string): number {
  let count = text.length;
  for (let i = 1; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const before = text.charCodeAt(i - 1);
    // A low surrogate right after a high one completes a character counted at the high one.
    if (unit >= 0xdc00 && unit <= 0xdfff && before >= 0xd800 && before <= 0xdbff) {
      count -= 1;
      i += 1;
    }
  }
  return count;
}

/** True when `text` has at most `max` characters; counts only when its UTF-16 length leaves it open. */
export const withinCharacters = (text: string, max: number): boolean => text.length <= max || (text.length <= 2 * max && characterCount(text) <= max);
