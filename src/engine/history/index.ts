export * from './history-db';
export * from './redact';
export { HISTORY_DB_NAME, HISTORY_DB_VERSION, upgradeHistoryDb } from './schema';
