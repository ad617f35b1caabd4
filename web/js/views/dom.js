/**
 * Builds DOM nodes without HTML strings (no innerHTML anywhere: text is always text). `h('button', {type:
 * 'submit', onclick: f}, 'Send')`: attributes, `on…` listeners, `dataset`, children (strings become text nodes).
 */

export function h(tag, attributes = {}, ...children) {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) {
        if (value === undefined || value === null || value === false) continue;
        if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
        else if (name === 'dataset') Object.assign(element.dataset, value);
        else if (name === 'value') element.value = value;
        else element.setAttribute(name, value === true ? '' : String(value));
    }
    append(element, children);
    return element;
}

function append(element, children) {
    for (const child of children.flat(Infinity)) {
        if (child === undefined || child === null || child === false) continue;
        element.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
}

/** Replaces everything in `element` with `children`. */
export function replace(element, ...children) {
    element.replaceChildren();
    append(element, children);
    return element;
}

/** A labelled form field; the label names the input for screen readers. */
export function field(labelText, input, hint) {
    const id = input.id || `field-${Math.random().toString(36).slice(2)}`;
    input.id = id;
    const hintNode = hint ? h('small', { id: `${id}-hint`, class: 'hint' }, hint) : null;
    if (hintNode) input.setAttribute('aria-describedby', hintNode.id);
    return h('div', { class: 'field' }, h('label', { for: id }, labelText), input, hintNode);
}

/** The avatar presets the relay knows (openapi.yaml `Avatar.preset`), each drawn as a coloured disc. */
export const avatarPresets = ['mouse', 'ox', 'tiger', 'rabbit', 'dragon', 'snake', 'horse', 'ram', 'monkey', 'rooster',
    'dog', 'pig'];

/** An SVG picture for a preset avatar (or the nickname's initial on grey when there is none). */
export function avatarPicture(preset, nickname = '', size = 40) {
    const ns = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('viewBox', '0 0 40 40');
    svg.setAttribute('width', String(size));
    svg.setAttribute('height', String(size));
    svg.setAttribute('class', 'avatar');
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', preset ? `avatar: ${preset}` : `${nickname} (no avatar)`);
    const index = avatarPresets.indexOf(preset);
    const circle = document.createElementNS(ns, 'circle');
    circle.setAttribute('cx', '20');
    circle.setAttribute('cy', '20');
    circle.setAttribute('r', '20');
    circle.setAttribute('fill', index >= 0 ? `hsl(${index * 30} 65% 45%)` : '#6b7280');
    const text = document.createElementNS(ns, 'text');
    text.setAttribute('x', '20');
    text.setAttribute('y', '26');
    text.setAttribute('text-anchor', 'middle');
    text.setAttribute('font-size', '17');
    text.setAttribute('fill', '#fff');
    text.textContent = (index >= 0 ? preset : nickname).slice(0, 2).toUpperCase();
    svg.append(circle, text);
    return svg;
}

export function formatTime(milliseconds) {
    return new Date(milliseconds).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}
