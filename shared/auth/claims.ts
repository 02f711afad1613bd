/** A claim's name, as a tenant or field rule and an API_TOKENS entry spell it: 1 to 128 visible ASCII characters. */
export const CLAIM_NAME = /^[\x21-\x7e]{1,128}$/;
