import { inject } from 'vitest';

// Code under test uses its normal connection path (getDb() reads DATABASE_URL).
process.env.DATABASE_URL = inject('databaseUrl');
Object.assign(process.env, inject('dataApiEnv'));
process.env.LOG_LEVEL ??= 'warn';
