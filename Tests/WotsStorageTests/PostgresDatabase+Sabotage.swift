import PostgresNIO

@testable import WotsStoragePostgres

extension WotsStoragePostgres.PostgresDatabase {
    /// Makes every later deletion of a session fail inside the database, with a trigger.
    func failSessionDeletions() async throws {
        try await self.client.query(
            """
            CREATE FUNCTION wots_sabotage() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'no'; END $$
            """
        )
        try await self.client.query(
            "CREATE TRIGGER sabotage BEFORE DELETE ON auth_sessions FOR EACH ROW EXECUTE FUNCTION wots_sabotage()"
        )
    }
}
