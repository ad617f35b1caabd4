import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { AvatarImage } from '../js/content/avatar-image.js';

const png = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13);
const jpeg = Uint8Array.of(0xff, 0xd8, 0xff, 0xe0, 0, 16);

describe('avatar pictures (Avatar.validatedImage\'s rule)', () => {
    test('a PNG or JPEG is told by its magic bytes, whatever its name says', () => {
        assert.equal(AvatarImage.mediaType(png), 'image/png');
        assert.equal(AvatarImage.mediaType(jpeg), 'image/jpeg');
        assert.equal(AvatarImage.mediaType(new TextEncoder().encode('GIF89a…')), null);
        assert.equal(AvatarImage.mediaType(png.subarray(0, 4)), null, 'a cut-off signature is not a PNG');
        assert.equal(AvatarImage.problem(png), null);
    });

    test('at most 64 KiB; a larger or other picture gets a sentence saying which rule it broke', () => {
        const largest = new Uint8Array(AvatarImage.maximumSize);
        largest.set(png);
        assert.equal(AvatarImage.problem(largest), null);
        const larger = new Uint8Array(AvatarImage.maximumSize + 1);
        larger.set(png);
        assert.match(AvatarImage.problem(larger), /at most 64 KiB/);
        assert.match(AvatarImage.problem(Uint8Array.of(1, 2, 3)), /PNG or JPEG/);
    });
});
