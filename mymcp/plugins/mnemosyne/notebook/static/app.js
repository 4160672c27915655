// The notebook page. Every text that comes from the notebook is set as text (textContent,
// text nodes, attribute values), never parsed as HTML.
"use strict";

(function () {
  const state = { csrf: "", tools: {}, scopes: [], settingsFile: "", rows: [], current: null };

  const SKIP_REASONS = {
    symlink: "a symbolic link; the notebook never follows one",
    too_deep: "a folder deeper than recall looks",
    unreadable: "could not be read",
    oversized: "larger than 64 KiB",
    invalid_encoding: "not UTF-8 text",
    invalid_json: "not valid JSON",
    invalid_record: "JSON, but not a memory record (a field is missing, extra or wrong)",
    path_mismatch: "a record whose scope, namespace, collection or ID does not match its place",
    not_a_scope: "not one of the six scope folders",
    not_a_directory: "a scope that is a file, not a folder",
  };

  // --- building the page -------------------------------------------------------------------

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (key === "class") node.className = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (value === true) node.setAttribute(key, "");
      else if (value !== false && value !== null && value !== undefined) {
        node.setAttribute(key, String(value));
      }
    }
    for (const child of children) {
      if (child !== null && child !== undefined && child !== false) node.append(child);
    }
    return node;
  }

  function byId(id) {
    return document.getElementById(id);
  }

  function notice(text) {
    byId("notice").textContent = text;
  }

  // --- talking to the server ---------------------------------------------------------------

  class Refused extends Error {
    constructor(answer) {
      super(answer.message || "refused");
      this.answer = answer;
    }
  }

  async function api(path, body) {
    const options = { credentials: "same-origin", headers: {} };
    if (body !== undefined) {
      options.method = "POST";
      options.headers["Content-Type"] = "application/json";
      options.headers["X-MyMCP-CSRF"] = state.csrf;
      options.body = JSON.stringify(body);
    }
    const response = await fetch(path, options);
    if (response.status === 401) {
      window.location.assign("login");
      throw new Refused({ message: "logged out" });
    }
    const answer = await response.json();
    if (!response.ok) throw new Refused(answer);
    return answer;
  }

  function failed(error) {
    notice(error instanceof Refused ? error.message : "The notebook server did not answer.");
  }

  // --- the memories, by scope, namespace and collection -----------------------------------

  function title(row) {
    return row.title === null ? "(no title) " + row.reference.id : row.title;
  }

  function day(timestamp) {
    return timestamp ? timestamp.slice(0, 10) : null;
  }

  function rowMeta(row) {
    const parts = [row.kind || "version 1 record", row.state];
    if (row.created_at) parts.push("created " + day(row.created_at));
    if (row.updated_at && row.updated_at !== row.created_at) {
      parts.push("updated " + day(row.updated_at));
    }
    return parts.join(" · ");
  }

  // One listener on the tree opens whichever memory is chosen (a row names its index).
  function memoryItem(row) {
    const button = el("button", { type: "button", class: "memory", "data-row": row.index }, title(row));
    return el("li", {}, button, " ", el("span", { class: "meta" }, rowMeta(row)));
  }

  function openChosen(event) {
    const button = event.target.closest("button.memory[data-row]");
    if (button) inspect(state.rows[Number(button.dataset.row)].reference);
  }

  function labelled(id, label, kind) {
    const text = label === null || label === undefined ? id : id + " (" + label + ")";
    return kind ? text + " · " + kind : text;
  }

  // Rows come in notebook order: version 1 records, then by namespace, the records without
  // a collection before each collection.
  function grouped(rows) {
    const namespaces = el("ul", { class: "namespaces" });
    let namespaceKey;
    let collectionKey;
    let collections = null;
    let memories = null;
    for (const row of rows) {
      const namespace = row.namespace ? row.namespace.id : null;
      if (collections === null || namespace !== namespaceKey) {
        namespaceKey = namespace;
        collectionKey = undefined;
        collections = el("ul", { class: "collections" });
        const name = row.namespace
          ? labelled(row.namespace.id, row.namespace.label, row.namespace.kind)
          : "version 1 records";
        namespaces.append(el("li", {}, el("span", { class: "namespace" }, name), collections));
      }
      const collection = row.collection ? row.collection.id : null;
      if (memories === null || collection !== collectionKey) {
        collectionKey = collection;
        memories = el("ul", { class: "list" });
        const name = row.collection
          ? labelled(row.collection.id, row.collection.label)
          : row.namespace
            ? "no collection"
            : "";
        collections.append(el("li", {}, el("span", { class: "collection" }, name), memories));
      }
      memories.append(memoryItem(row));
    }
    return namespaces;
  }

  function renderTree(rows) {
    const fragment = document.createDocumentFragment();
    for (const scope of state.scopes) {
      const inScope = rows.filter((row) => row.scope === scope.scope);
      const active = inScope.filter((row) => row.state !== "archived");
      const archived = inScope.filter((row) => row.state === "archived");
      const count = active.length + " active, " + archived.length + " archived";
      const section = el(
        "details",
        { class: "scope", open: inScope.length > 0, "data-scope": scope.scope },
        el("summary", {}, scope.scope + " ", el("span", { class: "meta" }, count)),
      );
      if (inScope.length === 0) section.append(el("p", { class: "hint" }, "No memories yet."));
      if (active.length) section.append(grouped(active));
      if (archived.length) {
        section.append(
          el(
            "details",
            { class: "archived" },
            el("summary", {}, "Archived (" + archived.length + ")"),
            grouped(archived),
          ),
        );
      }
      fragment.append(section);
    }
    byId("tree").replaceChildren(fragment);
    byId("counts").textContent = rows.length + (rows.length === 1 ? " memory" : " memories");
  }

  function renderSkipped(skipped) {
    const box = byId("skipped-list");
    if (skipped.length === 0) {
      box.replaceChildren(el("p", {}, "None: every file is read."));
      return;
    }
    const body = el("tbody");
    for (const entry of skipped) {
      const why = SKIP_REASONS[entry.reason] || "";
      body.append(
        el(
          "tr",
          {},
          el("td", {}, el("code", {}, entry.path)),
          el("td", {}, el("code", {}, entry.reason)),
          el("td", {}, why),
        ),
      );
    }
    const head = el(
      "thead",
      {},
      el("tr", {}, el("th", { scope: "col" }, "File below the memory folder"),
        el("th", { scope: "col" }, "Reason"), el("th", { scope: "col" }, "Meaning")),
    );
    box.replaceChildren(el("table", {}, head, body));
  }

  function showOverview(overview) {
    overview.memories.forEach((row, index) => {
      row.index = index;
    });
    state.rows = overview.memories;
    renderTree(overview.memories);
    renderSkipped(overview.skipped);
  }

  async function loadOverview() {
    showOverview(await api("api/overview"));
  }

  // --- one memory in full ------------------------------------------------------------------

  function shown(value) {
    if (value === null) return "null";
    if (Array.isArray(value)) return value.length ? value.map(shown).join(", ") : "none";
    if (typeof value === "object") {
      return Object.entries(value).map(([key, item]) => key + ": " + shown(item)).join(", ");
    }
    return String(value);
  }

  function problem(answer) {
    const parts = [answer.status, answer.code];
    if (answer.field) parts.push("field " + answer.field);
    if (answer.reason) parts.push("reason " + answer.reason);
    return el(
      "p",
      { class: "problem", role: "alert" },
      parts.filter(Boolean).join(" · ") + ": " + (answer.message || ""),
    );
  }

  function memoryView(memory) {
    const fields = el("dl", { class: "fields" });
    for (const [key, value] of Object.entries(memory)) {
      const shownValue = key === "content" ? value : shown(value);
      fields.append(el("dt", {}, key), el("dd", { class: "field-" + key }, shownValue));
    }
    const heading = memory.title === null ? "(no title)" : memory.title;
    return [el("h3", { class: "memory-title" }, heading), fields];
  }

  function renderDetail(answer, before) {
    const body = byId("detail-body");
    state.current = null;
    if (answer.unavailable) {
      body.replaceChildren(el("p", {}, "memory_inspect is not served."));
    } else if (answer.is_error) {
      body.replaceChildren(problem(answer.answer));
    } else {
      state.current = answer.answer.memory;
      body.replaceChildren(...memoryView(state.current), actions(state.current));
    }
    if (before) body.prepend(before);
    byId("detail-title").focus();
  }

  async function inspect(reference, before) {
    try {
      renderDetail(await api("api/inspect", { reference: reference }), before);
    } catch (error) {
      failed(error);
    }
  }

  // --- changes -----------------------------------------------------------------------------

  const DONE = {
    remembered: "Remembered.",
    already_exists: "That memory is already in the notebook; nothing was added.",
    existing_archived: "That memory is already in the notebook, archived; nothing was added.",
    revised: "Revised.",
    already_current: "The memory already says exactly that; nothing was changed.",
    archived: "Archived.",
    already_archived: "It was archived already; nothing was changed.",
    restored: "Restored.",
    already_active: "It was active already; nothing was changed.",
    forgotten: "Forgotten: its file is gone.",
  };
  const STALE = "This memory changed since you opened it, so nothing was changed. " +
    "Here it is as it is now.";

  function enabled(role) {
    return Boolean(state.tools[role] && state.tools[role].enabled);
  }

  function offText(role) {
    const tool = state.tools[role];
    return tool.tool + " is off. To offer it here, set " + tool.variable +
      "=true in the server's environment, or " + tool.setting + " = true under [memory] in " +
      state.settingsFile + ", then restart the server.";
  }

  function renderGates() {
    const list = byId("gate-list");
    list.replaceChildren();
    for (const role of ["remember", "revise", "archive", "restore", "forget"]) {
      const tool = state.tools[role];
      if (!tool) continue;
      const text = tool.enabled ? tool.tool + " is on." : offText(role);
      list.append(el("li", { class: tool.enabled ? "gate-on" : "gate-off", "data-role": role }, text));
    }
  }

  function canonicalReference(reference) {
    return Object.assign({ schema_version: 2 }, reference);
  }

  // Runs one change; a stale revision shows the memory as it is now, a refusal its reason.
  async function change(role, args, where) {
    let answer;
    try {
      answer = await api("api/change", { change: role, arguments: args });
    } catch (error) {
      failed(error);
      return false;
    }
    const payload = answer.answer;
    if (answer.is_error && payload.code === "revision_conflict") {
      await loadOverview().catch(failed);
      await inspect(args.reference, el("p", { class: "problem", role: "alert" }, STALE));
      notice(STALE);
      return false;
    }
    if (answer.is_error) {
      const shown = problem(payload);
      notice(shown.textContent);
      where.replaceChildren(shown);
      return false;
    }
    await loadOverview().catch(failed);
    if (role === "forget") {
      byId("detail-body").replaceChildren(el("p", { class: "hint" }, DONE.forgotten));
    } else {
      await inspect(canonicalReference(payload.reference));
    }
    // Said last, once the page shows the notebook as the change left it.
    notice(DONE[payload.status] || "Done: " + payload.status + ".");
    return true;
  }

  function target(memory) {
    return { reference: memory.reference, expected_revision: memory.lifecycle.revision };
  }

  function actionButton(role, label, onclick) {
    if (!enabled(role)) return el("p", { class: "hint gate-off" }, offText(role));
    return el("button", { type: "button", "data-change": role, onclick: onclick }, label);
  }

  function actions(memory) {
    if (memory.schema_version !== 2) {
      return el("p", { class: "hint" }, "A version 1 record is changed only by editing its file.");
    }
    const box = el("div", { class: "changes" });
    const bar = el("div", { class: "actions" });
    const archived = memory.lifecycle.state === "archived";
    const outcome = el("div", { class: "outcome" });
    const run = (role) => () => change(role, target(memory), outcome);
    bar.append(actionButton("revise", "Revise", () => openRevise(memory)));
    if (archived) {
      bar.append(actionButton("restore", "Restore", run("restore")));
      bar.append(actionButton("forget", "Forget…", () => confirmForget(memory, outcome)));
    } else {
      bar.append(actionButton("archive", "Archive", run("archive")));
      if (enabled("forget")) bar.append(el("p", { class: "hint" }, "Archive it first to forget it."));
    }
    box.append(bar, outcome);
    return box;
  }

  function confirmForget(memory, outcome) {
    const dialog = byId("forget-dialog");
    byId("forget-name").textContent = memory.title === null ? memory.id : memory.title;
    dialog.returnValue = "";
    dialog.addEventListener(
      "close",
      () => {
        if (dialog.returnValue === "forget") change("forget", target(memory), outcome);
      },
      { once: true },
    );
    dialog.showModal();
    byId("forget-keep").focus();
  }

  // --- forms ---------------------------------------------------------------------------------

  let fieldCount = 0;

  function field(label, control, hint) {
    fieldCount += 1;
    control.id = control.id || "field-" + fieldCount;
    const parts = [el("label", { for: control.id }, label), control];
    if (hint) parts.push(el("span", { class: "hint" }, hint));
    return el("div", { class: "field" }, ...parts);
  }

  function input(name, value, props) {
    const node = el("input", Object.assign({ name: name, autocomplete: "off" }, props || {}));
    node.value = value === null || value === undefined ? "" : value;
    return node;
  }

  function textarea(name, value) {
    const node = el("textarea", { name: name, rows: 6, maxlength: 4000, required: true });
    node.value = value || "";
    return node;
  }

  function select(name, values) {
    return el("select", { name: name }, ...values.map((value) => el("option", { value: value }, value)));
  }

  function orNull(text) {
    const trimmed = text.trim();
    return trimmed === "" ? null : trimmed;
  }

  function tagList(text) {
    return text.split(",").map((tag) => tag.trim()).filter((tag) => tag !== "");
  }

  function openRevise(memory) {
    const form = el("form", { class: "edit", id: "revise-form" });
    const controls = {
      namespace_label: input("namespace_label", memory.namespace.label, { maxlength: 100 }),
      title: input("title", memory.title, { maxlength: 200 }),
      content: textarea("content", memory.content),
      tags: input("tags", memory.tags.join(", ")),
    };
    if (memory.collection) {
      controls.collection_label = input("collection_label", memory.collection.label, { maxlength: 100 });
    }
    const outcome = el("div", { class: "outcome" });
    form.append(
      el("h3", {}, "Revise"),
      field("Namespace label", controls.namespace_label, "empty for none"),
      controls.collection_label ? field("Collection label", controls.collection_label, "empty for none") : null,
      field("Title", controls.title, "empty for none"),
      field("Content", controls.content),
      field("Tags", controls.tags, "separated by commas"),
      outcome,
      el(
        "div",
        { class: "actions" },
        el("button", { type: "submit" }, "Save"),
        el("button", { type: "button", onclick: () => inspect(memory.reference) }, "Cancel"),
      ),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const args = target(memory);
      args.namespace_label = orNull(controls.namespace_label.value);
      if (controls.collection_label) args.collection_label = orNull(controls.collection_label.value);
      args.title = orNull(controls.title.value);
      args.content = controls.content.value;
      args.tags = tagList(controls.tags.value);
      change("revise", args, outcome);
    });
    byId("detail-body").replaceChildren(form);
    controls.title.focus();
  }

  function rememberForm() {
    const body = byId("remember-body");
    if (!enabled("remember")) {
      body.replaceChildren(el("p", { class: "hint gate-off" }, offText("remember")));
      return;
    }
    const scopes = state.scopes;
    const controls = {
      scope: select("scope", scopes.map((scope) => scope.scope)),
      namespaceKind: select("namespace_kind", []),
      namespaceId: input("namespace_id", "", { required: true, maxlength: 64 }),
      namespaceLabel: input("namespace_label", "", { maxlength: 100 }),
      collectionId: input("collection_id", "", { maxlength: 64 }),
      collectionLabel: input("collection_label", "", { maxlength: 100 }),
      kind: select("kind", []),
      language: input("language", "", { maxlength: 35 }),
      title: input("title", "", { maxlength: 200 }),
      content: textarea("content", ""),
      tags: input("tags", ""),
      origin: select("origin", ["explicit_user_statement", "user_approved_proposal"]),
      occurredAt: input("occurred_at", "", { placeholder: "2026-07-18T12:00:00Z" }),
    };
    const occurred = field("Occurred at", controls.occurredAt, "UTC, for an event");
    function fitScope() {
      const rule = scopes.find((scope) => scope.scope === controls.scope.value);
      controls.namespaceKind.replaceChildren(...rule.namespace_kinds.map((v) => el("option", { value: v }, v)));
      controls.kind.replaceChildren(...rule.memory_kinds.map((v) => el("option", { value: v }, v)));
      fitKind();
    }
    function fitKind() {
      occurred.hidden = controls.kind.value !== "event";
    }
    controls.scope.addEventListener("change", fitScope);
    controls.kind.addEventListener("change", fitKind);
    const outcome = el("div", { class: "outcome" });
    const form = el(
      "form",
      { class: "edit", id: "remember-form" },
      field("Scope", controls.scope),
      field("Namespace kind", controls.namespaceKind),
      field("Namespace", controls.namespaceId, "lower-case letters, digits, - and _"),
      field("Namespace label", controls.namespaceLabel, "optional"),
      field("Collection", controls.collectionId, "optional"),
      field("Collection label", controls.collectionLabel, "optional"),
      field("Kind", controls.kind),
      field("Language", controls.language, "optional, such as en or pt-BR"),
      field("Title", controls.title, "optional"),
      field("Content", controls.content),
      field("Tags", controls.tags, "separated by commas"),
      field("Origin", controls.origin, "you said it, or you approved a proposal"),
      occurred,
      outcome,
      el("div", { class: "actions" }, el("button", { type: "submit" }, "Remember")),
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const collection = orNull(controls.collectionId.value);
      const args = {
        scope: controls.scope.value,
        namespace: {
          kind: controls.namespaceKind.value,
          id: controls.namespaceId.value.trim(),
          label: orNull(controls.namespaceLabel.value),
        },
        collection: collection === null ? null : { id: collection, label: orNull(controls.collectionLabel.value) },
        kind: controls.kind.value,
        language: orNull(controls.language.value),
        title: orNull(controls.title.value),
        content: controls.content.value,
        tags: tagList(controls.tags.value),
        origin: controls.origin.value,
      };
      if (controls.kind.value === "event") args.occurred_at = controls.occurredAt.value.trim();
      if (await change("remember", args, outcome)) {
        form.reset();
        fitScope();
      }
    });
    body.replaceChildren(form);
    fitScope();
  }

  // --- search ------------------------------------------------------------------------------

  function matchText(match) {
    if (match.near && match.near.length) return "wider match: " + match.near.join(", ");
    const parts = [];
    if (match.terms.length) parts.push("words: " + match.terms.join(", "));
    if (match.tags.length) parts.push("tags: " + match.tags.join(", "));
    return parts.join("; ");
  }

  function hitItem(hit) {
    const wider = Boolean(hit.match.near && hit.match.near.length);
    const name = hit.title === null ? "(no title) " + hit.id : hit.title;
    const snippet = hit.content.length > 240 ? hit.content.slice(0, 240) + "…" : hit.content;
    return el(
      "li",
      { class: wider ? "hit wider" : "hit" },
      el("button", { type: "button", class: "memory", onclick: () => inspect(hit.reference) }, name),
      wider ? el("span", { class: "badge" }, "wider match") : null,
      el("p", { class: "snippet" }, snippet),
      el("p", { class: "meta" }, matchText(hit.match)),
    );
  }

  function renderResults(results) {
    const box = byId("result-list");
    const fragment = document.createDocumentFragment();
    let found = 0;
    for (const result of results) {
      if (result.unavailable) continue;
      const answer = result.answer;
      if (result.is_error) {
        fragment.append(el("h3", {}, result.scope), problem(answer));
        continue;
      }
      if (!answer.memories.length) continue;
      found += answer.memories.length;
      fragment.append(el("h3", {}, result.scope), el("ol", { class: "hits" }, ...answer.memories.map(hitItem)));
    }
    if (!fragment.childNodes.length) fragment.append(el("p", {}, "Nothing in the notebook matches."));
    box.replaceChildren(fragment);
    byId("results").hidden = false;
    notice(found + (found === 1 ? " memory found." : " memories found."));
  }

  async function search(event) {
    event.preventDefault();
    const scope = byId("scope").value || null;
    try {
      const answer = await api("api/search", { query: byId("query").value, scope: scope });
      renderResults(answer.results);
      byId("results-title").focus();
    } catch (error) {
      failed(error);
    }
  }

  // --- start -------------------------------------------------------------------------------

  async function logOut() {
    try {
      await api("logout", {});
    } catch (error) {
      // logged out either way
    }
    window.location.assign("login");
  }

  function fillScopes() {
    const select = byId("scope");
    for (const scope of state.scopes) {
      select.append(el("option", { value: scope.scope }, scope.scope));
    }
  }

  async function start() {
    byId("search").addEventListener("submit", search);
    byId("tree").addEventListener("click", openChosen);
    byId("logout").addEventListener("click", logOut);
    byId("reload").addEventListener("click", () => loadOverview().catch(failed));
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") loadOverview().catch(failed);
    });
    try {
      const [session, overview] = await Promise.all([api("api/session"), api("api/overview")]);
      state.csrf = session.csrf;
      state.scopes = session.scopes;
      state.settingsFile = session.settings_file;
      for (const tool of session.tools) state.tools[tool.role] = tool;
      fillScopes();
      renderGates();
      rememberForm();
      showOverview(overview);
      // Marked once the list has been painted: when it is on screen, counted from the
      // navigation's start (the benchmark reads it).
      window.requestAnimationFrame(() =>
        window.setTimeout(() => {
          document.body.dataset.readyMs = String(Math.round(performance.now()));
          document.body.dataset.ready = "true";
        }),
      );
    } catch (error) {
      failed(error);
    }
  }

  start();
})();
