// The account sheet (docs/rules.md, "Ranked play"; docs/protocol.md, "Account"): sign in with a
// passkey or create one, your passkeys, sign out, delete me. No e-mail, no password, no name:
// a passkey (navigator.credentials) and the server's random person id. Its own chunk, fetched
// on the first tap of the home screen's "Sign in" (the home screen's bundle budget).
import { h } from "../dom.js";
import { errorText, t } from "../i18n.js";
import { account, signedIn } from "../api.js";
import { KEYS, device } from "../storage.js";
import { closeSheet, showSheet } from "../game/sheet.js";

const b64 = {
  toBytes(s) {
    const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  },
  of(buf) {
    let bin = "";
    for (const b of new Uint8Array(buf)) bin += String.fromCharCode(b);
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  },
};

// The server's options (base64url fields, WebAuthn's JSON form) as the browser API takes them.
function creationOptions(o) {
  return {
    ...o,
    challenge: b64.toBytes(o.challenge),
    user: { ...o.user, id: b64.toBytes(o.user.id) },
    excludeCredentials: (o.excludeCredentials || []).map((c) => ({ ...c, id: b64.toBytes(c.id) })),
  };
}
function requestOptions(o) {
  return {
    ...o,
    challenge: b64.toBytes(o.challenge),
    allowCredentials: (o.allowCredentials || []).map((c) => ({ ...c, id: b64.toBytes(c.id) })),
  };
}
// A new credential or an assertion as the JSON the server verifies (base64url fields).
function credentialJSON(cred) {
  const r = cred.response;
  const response = { clientDataJSON: b64.of(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = b64.of(r.attestationObject);
    if (r.getTransports) response.transports = r.getTransports();
  } else {
    response.authenticatorData = b64.of(r.authenticatorData);
    response.signature = b64.of(r.signature);
    if (r.userHandle) response.userHandle = b64.of(r.userHandle);
  }
  return { id: cred.id, rawId: b64.of(cred.rawId), type: cred.type, response, clientExtensionResults: {} };
}

function keep(answer) {
  device.setJSON(KEYS.signIn, { session: answer.session, person: answer.person, expires: answer.expires });
}

async function createPasskey() {
  const { challengeId, options } = await account.createOptions();
  const cred = await navigator.credentials.create({ publicKey: creationOptions(options) });
  keep(await account.create(challengeId, credentialJSON(cred)));
}

async function signInWithPasskey() {
  const { challengeId, options } = await account.signInOptions();
  const cred = await navigator.credentials.get({ publicKey: requestOptions(options) });
  keep(await account.signIn(challengeId, credentialJSON(cred)));
}

function when(sec) {
  return new Date(sec * 1000).toLocaleDateString(document.documentElement.lang || undefined);
}

/** Open the account sheet; `onChange()` after a sign-in or sign-out (the home screen's entry). */
export function openAccount(onChange = () => {}) {
  const error = h("p", { class: "form-error", role: "alert", id: "account-error" });
  const body = h("div", { class: "account" });
  const section = showSheet("account-sheet", t("account.title"), [body, error]);

  async function act(fn) {
    error.textContent = "";
    try {
      await fn();
      onChange();
      await draw();
    } catch (err) {
      if (err && (err.name === "NotAllowedError" || err.name === "AbortError")) {
        error.textContent = t("account.cancelled");
      } else if (err && err.name === "InvalidStateError") {
        error.textContent = t("account.already");
      } else if (err && err.code) {
        if (err.code === "signed_out" || err.code === "banned") device.remove(KEYS.signIn);
        error.textContent = errorText(err.code, err.message);
        await draw();
      } else {
        error.textContent = t("account.unsupported");
      }
    }
  }

  async function draw() {
    const s = signedIn();
    if (!s) {
      body.replaceChildren(
        h("p", { class: "hint" }, t("account.why")),
        h("button", { type: "button", class: "btn btn-primary", id: "account-signin", onclick: () => act(signInWithPasskey) },
          t("account.signIn")),
        h("button", { type: "button", class: "btn", id: "account-create", onclick: () => act(createPasskey) },
          t("account.create")),
        h("button", { type: "button", class: "btn", onclick: closeSheet }, t("common.close")),
      );
      return;
    }
    let info = null;
    try {
      info = await account.get();
    } catch (err) {
      if (err.code === "signed_out" || err.code === "banned") {
        device.remove(KEYS.signIn);
        error.textContent = errorText(err.code, err.message);
        onChange();
        return draw();
      }
      error.textContent = errorText(err.code, err.message);
      return;
    }
    body.replaceChildren(
      h("p", { id: "account-status", "data-signed-in": "1" }, t("account.signedIn")),
      h("p", { class: "hint" }, t("account.games", { n: info.person.casualGames })),
      h("h3", null, t("account.passkeys")),
      h(
        "ul",
        { class: "account-passkeys", id: "account-passkeys" },
        info.passkeys.map((p, i) =>
          h(
            "li",
            { "data-passkey": p.id },
            h("span", null, t("account.passkey", { n: i + 1, date: when(p.created) })),
            info.passkeys.length > 1
              ? h("button", { type: "button", class: "btn btn-small", onclick: () => act(() => account.removePasskey(p.id)) },
                  t("account.removePasskey"))
              : null,
          ),
        ),
      ),
      h("button", { type: "button", class: "btn", id: "account-add", onclick: () => act(createPasskey) }, t("account.add")),
      h("button", {
        type: "button", class: "btn", id: "account-signout",
        onclick: () => act(async () => {
          try {
            await account.signOut();
          } finally {
            device.remove(KEYS.signIn);
          }
        }),
      }, t("account.signOut")),
      h("button", {
        type: "button", class: "btn btn-yes", id: "account-delete",
        onclick: () => {
          if (!window.confirm(t("account.deleteConfirm"))) return;
          act(async () => {
            await account.remove();
            device.remove(KEYS.signIn);
          });
        },
      }, t("account.delete")),
      h("button", { type: "button", class: "btn", onclick: closeSheet }, t("common.close")),
    );
  }

  draw();
  return section;
}
