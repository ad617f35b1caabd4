/**
 * A refusal from the relay (`{"error": {"code", "message"}}`) or a transport failure, with the code the Swift
 * client uses (`WotsError`'s codes: `nickname_taken`, `wrong_secret`, `relay_unreachable`, …).
 */
export class RelayError extends Error {
    /**
     * @param {string} code the relay's error code, or `relay_unreachable` / `invalid_response`
     * @param {string} reason one sentence for people
     * @param {number} [status] the HTTP status, when there was one
     */
    constructor(code, reason, status = 0) {
        super(reason);
        this.name = 'RelayError';
        this.code = code;
        this.status = status;
    }
}
