/**
 * The avatar picture rule, as WotsCore's `Avatar.validatedImage`: a PNG or JPEG (told by its magic bytes, not its
 * name) of at most 64 KiB. Registration checks a chosen file with it, and a received `profile` picture is kept only
 * if it passes.
 */

export const AvatarImage = Object.freeze({
    /** Largest picture, in bytes (`Avatar.maximumImageSize`). */
    maximumSize: 65_536,

    /** `image/png` or `image/jpeg` by the magic bytes, else null. */
    mediaType(bytes) {
        const starts = (magic) => bytes.length >= magic.length && magic.every((byte, index) => bytes[index] === byte);
        if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
        if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
        return null;
    },

    /** Why `bytes` cannot be an avatar (one sentence for people), or null when they can. */
    problem(bytes) {
        if (bytes.length > AvatarImage.maximumSize) {
            return `The picture is ${Math.ceil(bytes.length / 1024)} KiB; an avatar is at most 64 KiB.`;
        }
        if (AvatarImage.mediaType(bytes) === null) return 'An avatar must be a PNG or JPEG picture.';
        return null;
    },
});
