// The login page: hands the one-time secret of the printed address to the server, once.
"use strict";

(function () {
  const status = document.getElementById("status");

  function say(text) {
    status.textContent = text;
  }

  async function logIn(body) {
    const response = await fetch("login", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    return response.status === 204;
  }

  async function start() {
    const secret = new URLSearchParams(window.location.hash.slice(1)).get("secret");
    // The secret leaves the address bar (and the history) before anything else happens.
    window.history.replaceState(null, "", window.location.pathname);
    if (!secret) {
      say("You are not logged in.");
      return;
    }
    say("Logging in…");
    try {
      if (await logIn({ secret: secret })) {
        window.location.replace("./");
        return;
      }
      say("This login link was used already or has expired. Run mymcp notebook again for a new one.");
    } catch (error) {
      say("The notebook server did not answer. Is mymcp still running?");
    }
  }

  async function withToken(event) {
    event.preventDefault();
    const field = document.getElementById("token");
    try {
      if (await logIn({ token: field.value })) {
        window.location.replace("./");
        return;
      }
      say("That is not the access token. Run mymcp token and paste what it prints.");
    } catch (error) {
      say("The notebook server did not answer. Is mymcp still running?");
    }
    field.value = "";
    field.focus();
  }

  document.getElementById("token-form").addEventListener("submit", withToken);
  start();
})();
