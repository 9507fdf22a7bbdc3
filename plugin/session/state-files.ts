/**
 * The workspace's files as the surface names and reads them: where big-memory keeps its state and how
 * private it is, the rules of a daily log's name, the compaction ledger and the restore log read whole,
 * a state file read as a regular file only, and the journal's check. Reads only: the writes go through
 * workspace.ts (the plugin) and maintenance.ts (the CLI's save, delete, archive, scrub and repair).
 */
export { errorCode, errorMessage } from "../store/fs-durable.ts";
export { PRIVATE_FILE_MODE, STATE_DIR_NAME } from "../store/gate.ts";
export { checkJournal, findLost, incidentMessage } from "../store/journal-check.ts";
export { LEDGER_FILE, type LedgerRead, type LedgerRecord, readLedger } from "../store/ledger.ts";
export { isDailyLogDate, logNameProblem } from "../store/log-names.ts";
export { readMemoryFile, readStateFile } from "../store/log-open.ts";
export {
  RESTORE_LOG_FILE,
  type RestoreLogEntry,
  type RestoreLogRead,
  readRestoreLog,
} from "../store/restore-log.ts";
export type { Logger } from "../store/state.ts";
