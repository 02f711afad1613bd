/** The receiver's own limits; the README's OneBot section documents each. */
export const ONEBOT_LIMITS = {
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
