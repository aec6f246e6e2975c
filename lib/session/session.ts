/* What a session is: who it speaks for (`Identity`) and the live row the store keeps (`Session`). */
/** Who a session speaks for, how and when they authenticated. */
export interface Identity {
  /** The verified subject: an email address under the sign-in component. */
  Subject: string;
  /** How the subject authenticated: "magiclink", "keymail", "passkey", "magiclink+passkey"... */
  Method: string;
  /** When the subject last proved who they are. */
  AuthTime: Date;
}

/** A live session: its identity plus bookkeeping. */
export interface Session extends Identity {
  CreatedAt: Date;
  LastSeen: Date;
  ExpiresAt: Date;
  /** The token hash (the row key); never the token itself. Never show it: use `PublicID`. */
  ID: string;
  /** The session's public id, safe to put in a page (revocation forms). */
  PublicID: string;
  /** Short description of the browser that signed in ("Firefox on Linux"), or "". */
  Device: string;
}
