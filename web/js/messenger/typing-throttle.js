/**
 * When a chat tells the other side that this side is typing, as WotsClient's `TypingThrottle`: `started` at most once
 * per `interval` while keys are pressed, `stopped` after `idle` without a key or when the message is sent. Events in,
 * what to send out; no clock of its own (times in milliseconds are passed in), so tests drive it without waiting.
 */
export class TypingThrottle {
    /** @param {{interval?: number, idle?: number}} [options] default one `started` per 3 s, `stopped` after 5 s idle */
    constructor({ interval = 3000, idle = 5000 } = {}) {
        this.interval = interval;
        this.idle = idle;
        this.reset();
    }

    /** A key was pressed at `now`. @returns {boolean} whether to send `started` */
    keystroke(now) {
        this.lastKey = now;
        if (this.lastStarted !== null && now - this.lastStarted < this.interval) return false;
        this.lastStarted = now;
        return true;
    }

    /** Time passed. @returns {boolean} whether to send `stopped` (`started` went out and no key came for `idle`) */
    tick(now) {
        if (this.lastStarted === null || this.lastKey === null || now - this.lastKey < this.idle) return false;
        this.reset();
        return true;
    }

    /** The message was sent (or the chat closed). @returns {boolean} whether to send `stopped` */
    sent() {
        const started = this.lastStarted !== null;
        this.reset();
        return started;
    }

    reset() {
        this.lastStarted = null;
        this.lastKey = null;
    }
}
