/** The receiver's own limits; the README's OneBot section documents each. */
export const ONEBOT_LIMITS = {
  /**
   * Nesting of arrays and objects in an event, the event itself counting as 1. DynamoDB stores
   * 32 levels, the event sits in the record's `d`, and 31 was a 500 from DynamoDB Local.
   */
  maxEventDepth: 30,
  /** Characters of a rule's pattern (any match kind). */
  maxPatternLength: 500,
  /** Characters of a regex rule's pattern. */
  maxRegexLength: 200,
  /** Characters of the message text a regex rule is tested against (the start of the text). */
  regexInputChars: 1000,
  /** Characters of a string reply, segments in an array reply. */
  maxReplyLength: 4500,
  maxReplySegments: 50,
  /** Enabled rules considered per event (one page of the rule list). */
  maxRules: 1000,
  /** Bots listed in the health answer. */
  maxBotsInHealth: 100,
  /** A heartbeat is overdue after this many of its intervals without one. */
  overdueIntervals: 3,
} as const;
