/**
 * The ledger's schema, as ordered migrations tracked by `PRAGMA user_version`.
 * Never edit a shipped migration; append a new one.
 */
export const migrations: ReadonlyArray<string> = [
  `
  CREATE TABLE answers (
    content_key TEXT PRIMARY KEY,   -- hash of endpoint, model, canonical parameters, text
    endpoint    TEXT NOT NULL,
    model       TEXT NOT NULL,
    answer      TEXT NOT NULL,      -- the answer as JSON (what the stage needs of the response)
    tokens      INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE runs (
    id           INTEGER PRIMARY KEY,
    job          TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,     -- of the input file
    status       TEXT NOT NULL,     -- running | interrupted | finished | aborted
    started_at   INTEGER NOT NULL,
    finished_at  INTEGER,
    counters     TEXT NOT NULL DEFAULT '{}'
  );
  CREATE INDEX runs_by_job ON runs (job, id);

  CREATE TABLE records (
    run_id    INTEGER NOT NULL,
    ordinal   INTEGER NOT NULL,     -- data row index in the input
    key       TEXT NOT NULL,        -- id column value, or fingerprint:ordinal
    status    TEXT NOT NULL,        -- done | failed
    output    TEXT,                 -- JSON array of output field sets (one per output row)
    error     TEXT,                 -- JSON {stage, status, message, attempts} when failed
    PRIMARY KEY (run_id, ordinal)
  ) WITHOUT ROWID;
  `,
  // 2: where a run's answers came from: "emulator" or the service's base URL (never a key).
  `ALTER TABLE runs ADD COLUMN service TEXT;`,
  // 3: when a run last saved its statistics (a running run saves them every few seconds), so
  // `status` can tell a live run from one whose process died.
  `ALTER TABLE runs ADD COLUMN updated_at INTEGER;`,
  // 4: the newest answer found without a scan (a rerun keeps its output only if no answer is newer).
  `CREATE INDEX IF NOT EXISTS answers_by_age ON answers (created_at);`,
  // 5: each answer's shape (bytes: a vector; or JSON text) and time, in a table of their own kept in
  // step by triggers: a rerun that only refers to its vectors tests their presence there (~6 MB per
  // 100k answers) instead of walking the answers' pages (6 KiB each; 4 s per 100k beyond the map).
  `CREATE TABLE answer_shapes (
     content_key TEXT PRIMARY KEY,
     created_at  INTEGER NOT NULL,
     in_bytes    INTEGER NOT NULL   -- 1: the answer is bytes (a vector), 0: JSON text
   ) WITHOUT ROWID;
   INSERT INTO answer_shapes SELECT content_key, created_at, typeof(answer) = 'blob' FROM answers;
   CREATE TRIGGER answer_shapes_insert AFTER INSERT ON answers BEGIN
     INSERT INTO answer_shapes VALUES (new.content_key, new.created_at, typeof(new.answer) = 'blob');
   END;
   CREATE TRIGGER answer_shapes_update AFTER UPDATE ON answers BEGIN
     UPDATE answer_shapes SET created_at = new.created_at, in_bytes = typeof(new.answer) = 'blob'
     WHERE content_key = new.content_key;
   END;
   CREATE TRIGGER answer_shapes_delete AFTER DELETE ON answers BEGIN
     DELETE FROM answer_shapes WHERE content_key = old.content_key;
   END;`,
  // 6: only answers in bytes are listed (migration 5 listed every answer, and a ledger of text
  // answers grew by a third for nothing: a text answer is "not in bytes" whether listed or not).
  `DROP TRIGGER answer_shapes_insert;
   DROP TRIGGER answer_shapes_update;
   DROP TRIGGER answer_shapes_delete;
   DROP TABLE answer_shapes;
   CREATE TABLE answers_in_bytes (
     content_key TEXT PRIMARY KEY,
     created_at  INTEGER NOT NULL
   ) WITHOUT ROWID;
   INSERT INTO answers_in_bytes SELECT content_key, created_at FROM answers WHERE typeof(answer) = 'blob';
   CREATE TRIGGER answers_in_bytes_insert AFTER INSERT ON answers WHEN typeof(new.answer) = 'blob' BEGIN
     INSERT INTO answers_in_bytes VALUES (new.content_key, new.created_at);
   END;
   CREATE TRIGGER answers_in_bytes_update AFTER UPDATE ON answers BEGIN
     DELETE FROM answers_in_bytes WHERE content_key = old.content_key;
     INSERT INTO answers_in_bytes SELECT new.content_key, new.created_at WHERE typeof(new.answer) = 'blob';
   END;
   CREATE TRIGGER answers_in_bytes_delete AFTER DELETE ON answers BEGIN
     DELETE FROM answers_in_bytes WHERE content_key = old.content_key;
   END;`
]
