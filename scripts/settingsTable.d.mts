// Types of scripts/settingsTable.mjs for TypeScript callers (tests).
import type { Declaration } from '../lib/settings.ts';

export function renderSettingsTable(settings: Record<string, Declaration>): string;
export function readmeSettingsTable(readme: string): string;
export function withSettingsTable(readme: string, table: string): string;
