// The part of better-sqlite3's `Database` latch and applications call, as a type latch owns: the shipped declarations need no `@types/better-sqlite3`, and an application's own handle is still a `DB`.
/** What `Statement.run` returns. */
export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

/**
 * A prepared statement. `Params` is the tuple of positional parameters, or
 * one object of named ones; `Row` is what `get`/`all` return.
 */
export type Statement<Params extends unknown[] | object = unknown[], Row = unknown> = Params extends unknown[]
  ? BoundStatement<Params, Row>
  : BoundStatement<[Params], Row>;

/** A prepared statement taking the parameter list `Params`. */
export interface BoundStatement<Params extends unknown[], Row> {
  readonly source: string;
  readonly reader: boolean;
  run(...params: Params): RunResult;
  get(...params: Params): Row | undefined;
  all(...params: Params): Row[];
  iterate(...params: Params): IterableIterator<Row>;
  pluck(toggle?: boolean): this;
  raw(toggle?: boolean): this;
}

// better-sqlite3 declares the wrapped function with `any[]` parameters; the same
// constraint and inference keep its handle assignable to `DB`.
export type AnyFunction = (...args: any[]) => unknown;
export type ArgsOf<F extends AnyFunction> = F extends (...args: infer A) => unknown ? A : never;

/** A function wrapped by `DB.transaction`: calling it runs `F` in BEGIN…COMMIT. */
export interface Transaction<F extends AnyFunction> {
  (...args: ArgsOf<F>): ReturnType<F>;
  deferred(...args: ArgsOf<F>): ReturnType<F>;
  immediate(...args: ArgsOf<F>): ReturnType<F>;
  exclusive(...args: ArgsOf<F>): ReturnType<F>;
}

/** The SQLite handle every component takes (`OpenDB` returns one). */
export interface DB {
  readonly open: boolean;
  readonly memory: boolean;
  readonly inTransaction: boolean;
  readonly name: string;
  prepare<Params extends unknown[] | object = unknown[], Row = unknown>(source: string): Statement<Params, Row>;
  transaction<F extends AnyFunction>(fn: F): Transaction<F>;
  exec(source: string): this;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  close(): this;
}
