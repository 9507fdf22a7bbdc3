/**
 * Amnesia detection moved to `capture/amnesia.ts` (the capture part needs it to keep amnesia phrases out of a
 * draft's goal, and a part imports only its own and lower parts). Re-exported here for the restore path.
 */
export { type AmnesiaLanguage, type AmnesiaMatch, detectAmnesia } from "../capture/amnesia.ts";
