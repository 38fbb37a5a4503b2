/** The PostgreSQL server of the tests: AGENTFX_TEST_PG_URL, or the machine's own, started (scripts/testPostgres.mjs). */
export declare const testServerUrl: () => string
