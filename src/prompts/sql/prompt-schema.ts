// The two tables of the SQL prompt stores. Names come from `checkTablePrefix`, never from input.

/** `CREATE TABLE IF NOT EXISTS` for the versions. */
export function versionsTableSql(name: string, dialect: 'sqlite' | 'postgres'): string {
  const integer = dialect === 'sqlite' ? 'INTEGER' : 'integer';
  return (
    `CREATE TABLE IF NOT EXISTS ${name} (` +
    `id TEXT NOT NULL, version ${integer} NOT NULL, text TEXT NOT NULL, required_vars TEXT NOT NULL, ` +
    'engine TEXT NOT NULL, metadata TEXT NOT NULL, created_by TEXT NOT NULL, created_at TEXT NOT NULL, ' +
    `PRIMARY KEY (id, version))${dialect === 'sqlite' ? ' STRICT' : ''}`
  );
}

/** `CREATE TABLE IF NOT EXISTS` for the audit trail, in insert order (`seq`). */
export function auditTableSql(name: string, dialect: 'sqlite' | 'postgres'): string {
  const seq = dialect === 'sqlite' ? 'seq INTEGER PRIMARY KEY AUTOINCREMENT' : 'seq bigserial PRIMARY KEY';
  const integer = dialect === 'sqlite' ? 'INTEGER' : 'integer';
  return (
    `CREATE TABLE IF NOT EXISTS ${name} (${seq}, id TEXT NOT NULL, version ${integer} NOT NULL, ` +
    'action TEXT NOT NULL, by_whom TEXT NOT NULL, at TEXT NOT NULL, sha256 TEXT NOT NULL, ' +
    `previous_version ${integer}, previous_sha256 TEXT, changed TEXT NOT NULL)${dialect === 'sqlite' ? ' STRICT' : ''}`
  );
}
