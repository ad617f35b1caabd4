/**
 * The page: loads the account this browser keeps (or offers register / restore), then routes by the URL's hash:
 * `#home` (conversations and groups), `#directory`, `#chat/TOKEN`, `#new-group`, `#group/ID` and `#group-info/ID`
 * (ID: the group's 32 hex digits). Views are in views/, the account logic in messenger/.
 */

import { loadAccount } from './messenger/account.js';
import { registerView, restoreView } from './views/account-views.js';
import { chatView } from './views/chat-view.js';
import { ownAvatar } from './views/attachment-views.js';
import { h, replace } from './views/dom.js';
import { groupChatView } from './views/group-chat-view.js';
import { groupInfoView } from './views/group-info-view.js';
import { newGroupView } from './views/group-views.js';
import { conversationsView, directoryView } from './views/list-views.js';

const app = {
    root: document.getElementById('app'),
    bar: document.getElementById('account-bar'),
    status: document.getElementById('status'),
    messenger: null,
    leave: () => {},
    onAccount(messenger) {
        app.messenger = messenger;
        messenger.addEventListener('stream', ({ detail }) => {
            const words = { connecting: 'Connecting…', ready: '', offline: 'Offline: reconnecting…', stopped: '' };
            app.status.textContent = words[detail.state] ?? '';
            document.body.dataset.stream = detail.state;
        });
        messenger.addEventListener('typing-support', ({ detail }) => {
            document.body.dataset.typing = detail.supported ? 'on' : 'unsupported';
        });
        messenger.start();
        drawBar();
        if (location.hash === '#home') route();
        else location.hash = '#home';
    },
};

function drawBar() {
    const { messenger } = app;
    if (!messenger) {
        replace(app.bar);
        return;
    }
    const { account } = messenger;
    replace(app.bar,
        h('a', { href: '#home' }, 'Chats'),
        h('a', { href: '#directory' }, 'Directory'),
        h('span', { class: 'me', dataset: { testid: 'me' } },
            ownAvatar(messenger), account.nickname),
        h('button', {
            type: 'button', class: 'link', name: 'read-receipts', 'aria-pressed': String(messenger.readReceipts),
            onclick: async () => {
                await messenger.setReadReceipts(!messenger.readReceipts);
                drawBar();
            },
        }, `Read receipts: ${messenger.readReceipts ? 'on' : 'off'}`),
        h('button', { type: 'button', class: 'link', name: 'logout', onclick: logout }, 'Log out'));
}

async function logout() {
    const question = 'Log out and delete your keys and messages from this browser? '
        + 'You can restore the account with your nickname and secret.';
    if (!confirm(question)) return;
    app.leave();
    await app.messenger.logout();
    loggedOut();
}

function loggedOut() {
    app.messenger = null;
    drawBar();
    location.hash = '#register';
    route();
}

let routing = 0;

async function route() {
    const generation = ++routing;
    app.leave();
    app.leave = () => {};
    const [view, argument] = location.hash.slice(1).split('/');
    if (!app.messenger) {
        if (view === 'restore') restoreView(app);
        else registerView(app);
        return;
    }
    let leave = () => {};
    if (view === 'directory') await directoryView(app);
    else if (view === 'chat' && argument) leave = await chatView(app, argument);
    else if (view === 'new-group') leave = await newGroupView(app);
    else if (view === 'group' && argument) leave = await groupChatView(app, argument);
    else if (view === 'group-info' && argument) leave = await groupInfoView(app, argument);
    else leave = await conversationsView(app);
    // Another route began while this view loaded: this one is already replaced.
    if (generation !== routing) {
        leave();
        return;
    }
    entered(leave);
}

function entered(leave) {
    app.leave = leave;
    app.root.focus({ preventScroll: true });
}

window.addEventListener('hashchange', route);

try {
    const messenger = await loadAccount();
    if (messenger) {
        const hash = location.hash;
        app.onAccount(messenger);
        if (/^#(chat|group|group-info)\/|^#(directory|new-group)$/.test(hash)) location.hash = hash;
    } else {
        route();
    }
} catch (error) {
    app.status.textContent = `This browser cannot run Wots: ${error.message}`;
}
