-- Permission requests and questions, one at a time, through vim.ui.select / vim.ui.input (so the
-- user's UI plugin draws them). An edit or write shows its diff before the question. A dialog
-- answered elsewhere (another client, or the turn was aborted) is dropped, its preview closed, and
-- any window the UI opened for it is closed; a late answer to it is not sent.
--
-- A dialog never opens while the user types (agentls.dialogs.gate): it is announced (a notification and the
-- chat's winbar) and opens on :AgentlsDialog, or by itself once the user pauses in normal mode.
-- Dismissing it (Esc, or Enter without a choice) answers nothing: it waits again for :AgentlsDialog.
local client = require('agentls.server.client')
local config = require('agentls.config')
local gate = require('agentls.dialogs.gate')
local review = require('agentls.review.diff')

local M = {}

--- The session a dialog belongs to: a sub-agent's asks in the chat of the session whose task runs
--- it (`request.task`, docs/protocol.md "Sub-agents"), anything else in its own session's.
---@param request agentls.PermissionRequest|agentls.QuestionRequest
---@return string
function M.owner(request)
  local task = request.task
  if type(task) == 'table' and type(task.sessionID) == 'string' then
    return task.sessionID
  end
  return request.sessionID
end

M.queue = {} ---@type table[]   {kind = 'permission'|'question', request}
M.active = nil ---@type table|nil
M.seen = {} -- request ids already queued or answered

local PERMISSION_CHOICES = { 'Allow once', 'Always allow', 'Reject', 'Reject with a message…' }
local EDIT_FIRST = 'Edit the proposal first (then :AgentlsDialog)'

local function floating_windows()
  local out = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= '' then
      out[win] = true
    end
  end
  return out
end

local function close_preview(dialog)
  if dialog.close_preview then
    dialog.close_preview()
    dialog.close_preview = nil
  end
end

local function redraw_bars()
  pcall(vim.cmd, 'redrawstatus!')
end

local function finish(dialog)
  if M.active ~= dialog then
    return
  end
  if dialog.cancel_wait then
    dialog.cancel_wait()
    dialog.cancel_wait = nil
  end
  close_preview(dialog)
  M.active = nil
  redraw_bars()
  vim.schedule(M.next)
end

local function reply(dialog, method, params)
  if dialog.closed then
    vim.notify('agentls: that request was already answered', vim.log.levels.INFO)
    return
  end
  dialog.closed = true
  client.request(method, params, function(err)
    if err and err.code ~= -32010 then
      vim.notify('agentls: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
  end)
end

-- Run a vim.ui.* call, remembering which floating windows it opened (to close them if the
-- dialog is answered elsewhere).
local function ask(dialog, fn)
  local before = floating_windows()
  fn()
  dialog.windows = {}
  for win in pairs(floating_windows()) do
    if not before[win] then
      table.insert(dialog.windows, win)
    end
  end
end

-- With chats side by side (agentls.chat.tabs), which session asks: its title before the question.
local function whose(request)
  if next(require('agentls.chat.tabs').prompts) == nil then
    return ''
  end
  local owner = M.owner(request)
  local session = require('agentls').state.sessions[owner]
  return ('[%s] '):format(session and session.title or owner or '?')
end

---@param request agentls.PermissionRequest
local function permission_title(request)
  local what = request.title
  if not what or what == '' then
    what = table.concat(request.patterns or {}, ', ')
  end
  local task = request.task -- asked inside a sub-agent's session: name the task
  local by = task and (' (asked by the task "%s", @%s)'):format(task.description, task.subagent) or ''
  return ('%sagentls wants permission for %s: %s%s'):format(whose(request), request.permission, what, by)
end

local announce -- (below)

local function show_permission(dialog)
  local request = dialog.request
  local meta = request.metadata or {}
  local previewed = config.options.diff_preview and type(meta.after) == 'string' and type(meta.filepath) == 'string'
  if previewed and not dialog.close_preview then -- (kept while the user edits the proposal)
    dialog.close_preview, dialog.edited, dialog.focus = review.preview(meta.filepath, meta.after, meta.editable == true)
  elseif
    config.options.diff_preview
    and type(meta.files) == 'table'
    and type(meta.diff) == 'string'
    and not dialog.close_preview
  then
    dialog.close_preview = require('agentls.review.patch_preview').show(meta.diff) -- an edit of several files
  end
  local choices = PERMISSION_CHOICES
  if previewed and meta.editable == true then
    choices = vim.list_extend(vim.list_slice(PERMISSION_CHOICES), { EDIT_FIRST })
  end
  -- Accepting sends the user's version of the proposal, when they changed it.
  local function accept(how)
    local params = { requestID = request.id, reply = how }
    local edited = dialog.edited and dialog.edited()
    if edited then
      params.edited = edited
    end
    reply(dialog, 'agent/permission/reply', params)
  end
  -- The built-in select does not redraw before it asks: without this the diff is not on screen.
  vim.cmd('redraw')
  ask(dialog, function()
    vim.ui.select(
      choices,
      { prompt = permission_title(request), kind = 'agentls.permission', format_item = tostring },
      function(choice)
        if choice == 'Allow once' then
          accept('once')
        elseif choice == 'Always allow' then
          accept('always')
        elseif choice == EDIT_FIRST and not dialog.closed then
          -- The dialog waits; the proposed side is the user's to change, then :AgentlsDialog.
          announce(dialog, true)
          return dialog.focus and dialog.focus()
        elseif choice == 'Reject with a message…' and not dialog.closed then
          finish(dialog)
          vim.ui.input({ prompt = 'What should the agent do instead? ' }, function(message)
            local params = { requestID = request.id, reply = 'reject' }
            if message and message ~= '' then
              params.message = message
            end
            reply(dialog, 'agent/permission/reply', params)
          end)
          return
        elseif choice == 'Reject' then
          reply(dialog, 'agent/permission/reply', { requestID = request.id, reply = 'reject' })
        elseif not dialog.closed then -- dismissed: no answer; it waits for :AgentlsDialog
          return M.dismissed(dialog)
        end
        finish(dialog)
      end
    )
  end)
end

local OTHER = 'Type an answer…'
local DONE = '✓ Done'

-- Ask question `i` of the request, then the next; all answers go in one reply.
local function show_question(dialog, i, answers)
  local request = dialog.request
  local questions = request.questions or {}
  if i > #questions then
    reply(dialog, 'agent/question/reply', { requestID = request.id, answers = answers })
    return finish(dialog)
  end
  local q = questions[i]
  local chosen = {}
  local function pick()
    local items = {}
    for _, option in ipairs(q.options or {}) do
      if not vim.tbl_contains(chosen, option.label) then
        table.insert(items, option)
      end
    end
    -- custom == false: only the options answer it (a yes/no, a fixed list), so nothing to type.
    if q.custom ~= false then
      table.insert(items, { label = OTHER })
    end
    if q.multiple and #chosen > 0 then
      table.insert(items, { label = DONE })
    end
    ask(dialog, function()
      vim.ui.select(items, {
        prompt = whose(request) .. (q.header and q.header ~= '' and (q.header .. ': ') or '') .. q.question,
        kind = 'agentls.question',
        format_item = function(item)
          return item.description and item.description ~= '' and (item.label .. ' — ' .. item.description)
            or item.label
        end,
      }, function(item)
        if dialog.closed then
          return finish(dialog)
        elseif not item then -- dismissed: no answer; it waits for :AgentlsDialog
          return M.dismissed(dialog)
        elseif item.label == DONE then
          answers[i] = chosen
          return show_question(dialog, i + 1, answers)
        elseif item.label == OTHER then
          vim.ui.input({ prompt = q.question .. ' ' }, function(text)
            if not text or text == '' then
              reply(dialog, 'agent/question/reject', { requestID = request.id })
              return finish(dialog)
            end
            table.insert(chosen, text)
            if q.multiple then
              return pick()
            end
            answers[i] = chosen
            show_question(dialog, i + 1, answers)
          end)
          return
        end
        table.insert(chosen, item.label)
        if q.multiple then
          return pick()
        end
        answers[i] = chosen
        show_question(dialog, i + 1, answers)
      end)
    end)
  end
  pick()
end

local function show(dialog)
  if dialog.cancel_wait then
    dialog.cancel_wait()
    dialog.cancel_wait = nil
  end
  dialog.waiting = false
  redraw_bars()
  if dialog.kind == 'permission' then
    show_permission(dialog)
  else
    show_question(dialog, 1, {})
  end
end

--- What the waiting dialog asks, in a few words (the winbar shows it), and its session.
function M.waiting()
  local dialog = M.active
  if not dialog or not dialog.waiting then
    return nil
  end
  return M.describe(dialog), M.owner(dialog.request)
end

--- What a dialog asks, in a few words (the winbar and the notification that one waits).
function M.describe(dialog)
  if dialog.kind == 'permission' then
    return 'permission: ' .. (dialog.request.permission or '?')
  end
  return 'a question'
end

-- Say once that a dialog waits, short enough for the command line (a longer message would bring a
-- hit-enter prompt, which would take the keys the user is typing).
function announce(dialog, again)
  dialog.waiting = true
  redraw_bars()
  if again and require('agentls.ui.notify').chat_visible(M.owner(dialog.request)) then
    return -- the user just closed it, and the chat's winbar says it waits
  end
  local key = config.options.keymaps.dialog
  local how = ':AgentlsDialog' .. (key and (' (' .. key .. ' in the chat)') or '')
  local msg = ('agentls: %s %s: %s'):format(M.waiting(), again and 'still waits' or 'waits for you', how)
  local shorter = 'agentls: a dialog waits: :AgentlsDialog'
  if dialog.elsewhere then -- the user looks at another session's chat: say whose, and how to get there
    local session = require('agentls').state.sessions[M.owner(dialog.request)]
    local title = session and session.title or M.owner(dialog.request)
    msg = ('agentls: "%s" waits for you (%s): :AgentlsDialog takes you there'):format(title, M.waiting())
    shorter = ('agentls: "%s" waits: :AgentlsDialog takes you there'):format(title)
  end
  local room = math.max(20, vim.v.echospace - 1)
  if vim.fn.strdisplaywidth(msg) > room then
    msg = vim.fn.strdisplaywidth(shorter) <= room and shorter
      or ('agentls: a dialog waits: %s'):format(':AgentlsDialog'):sub(1, room)
  end
  if again then -- just closed: right after the dialog, a message would bring a hit-enter prompt
    return require('agentls.ui.notify').after_dialog(msg, vim.log.levels.WARN)
  end
  vim.notify(msg, vim.log.levels.WARN)
end

--- The user dismissed the open dialog without an answer: it waits again, until :AgentlsDialog.
function M.dismissed(dialog)
  if not (dialog.edited and dialog.edited()) then -- a proposal the user changed stays open
    close_preview(dialog)
  end
  if M.active ~= dialog or dialog.closed then
    return finish(dialog)
  end
  announce(dialog, true)
end

--- Show the next queued dialog when none is open: now if the user is not typing, else announced.
function M.next()
  local chats = require('agentls.chat.tabs')
  local active = M.active
  if
    active
    and active.waiting
    and not active.closed
    and (active.elsewhere or not chats.on_screen()[M.owner(active.request)])
  then
    for sid in pairs(chats.on_screen()) do -- a dialog of the session the user looks at goes first
      if M.offer(sid) then
        return
      end
    end
  end
  if M.active or #M.queue == 0 then
    return
  end
  -- First the dialog of a session the user looks at; one of a session whose chat is not on screen,
  -- while another session's is, waits for the user to go there (agentls.chat.tabs).
  local index = 1
  for i, queued in ipairs(M.queue) do
    if chats.on_screen()[M.owner(queued.request)] then
      index = i
      break
    end
  end
  local dialog = table.remove(M.queue, index)
  M.active = dialog
  dialog.elsewhere = chats.elsewhere(M.owner(dialog.request))
  if dialog.elsewhere then
    return announce(dialog, false)
  end
  if gate.quiet() then
    return show(dialog)
  end
  announce(dialog, false)
  dialog.cancel_wait = gate.when_quiet(function()
    dialog.cancel_wait = nil
    if M.active == dialog and dialog.waiting and not dialog.closed then
      show(dialog)
    end
  end)
end

--- Open the dialog that waits (:AgentlsDialog, the chat's `dialog` key): the user asked for it.
function M.open(session_id)
  if session_id and M.offer(session_id, true) then
    return
  end
  local dialog = M.active
  if dialog and dialog.waiting and not dialog.closed then
    if require('agentls.chat.tabs').elsewhere(M.owner(dialog.request)) then
      require('agentls.chat.tabs').go(M.owner(dialog.request)) -- to the chat of the session that asks
    end
    return show(dialog)
  end
  vim.notify('agentls: no dialog is waiting for an answer', vim.log.levels.INFO)
end

--- The user is at `session_id`'s chat: show its waiting dialog (when the user is not typing, or
--- `now`), putting back one of another session that only waited. Returns true when one shows.
function M.offer(session_id, now)
  local active = M.active
  if active and M.owner(active.request) ~= session_id then
    if not active.waiting or active.closed then
      return false -- another session's dialog is on screen
    end
    local found
    for i, queued in ipairs(M.queue) do
      if M.owner(queued.request) == session_id then
        found = i
        break
      end
    end
    if not found then
      return false
    end
    if active.cancel_wait then
      active.cancel_wait()
      active.cancel_wait = nil
    end
    table.insert(M.queue, 1, active)
    active = table.remove(M.queue, found + 1)
    M.active = active
    active.waiting = true -- it waits for an answer, as the one it replaces did
  end
  if not active or not active.waiting or active.closed then
    return false
  end
  active.elsewhere = false
  if now or gate.quiet() then
    show(active)
    return true
  end
  announce(active, true)
  active.cancel_wait = gate.when_quiet(function()
    active.cancel_wait = nil
    if M.active == active and active.waiting and not active.closed then
      show(active)
    end
  end)
  return false
end

--- Forget every dialog (the server is gone; the new one lists those still waiting).
function M.reset()
  local dialog = M.active
  if dialog then
    dialog.closed = true
    finish(dialog)
  end
  M.queue, M.seen = {}, {}
end

local function enqueue(kind, request)
  if M.seen[request.id] then
    return
  end
  M.seen[request.id] = true
  table.insert(M.queue, { kind = kind, request = request })
  vim.schedule(M.next)
end

--- A request was answered (here or elsewhere): drop it and close what shows it.
function M.close(request_id)
  for i, dialog in ipairs(M.queue) do
    if dialog.request.id == request_id then
      table.remove(M.queue, i)
      break
    end
  end
  local dialog = M.active
  if dialog and dialog.request.id == request_id then
    dialog.closed = true
    for _, win in ipairs(dialog.windows or {}) do
      if vim.api.nvim_win_is_valid(win) then
        pcall(vim.api.nvim_win_close, win, true)
      end
    end
    finish(dialog)
  end
end

-- Coming to a session's chat (another tab, another window) offers its waiting dialog.
vim.api.nvim_create_autocmd({ 'BufEnter', 'TabEnter' }, {
  group = vim.api.nvim_create_augroup('agentls_dialogs', { clear = true }),
  callback = function()
    local buf = vim.api.nvim_get_current_buf()
    local sid = require('agentls.chat.tabs').session_of(buf)
    if not sid and buf == require('agentls.chat').prompt_buf then
      sid = require('agentls.chat').session_id
    end
    local active = M.active
    if
      sid
      and active
      and active.waiting
      and not active.closed
      and (active.elsewhere or M.owner(active.request) ~= sid)
    then
      vim.schedule(function()
        M.offer(sid)
      end)
    end
  end,
})

--- Follow dialog events.
---@param event agentls.AgentEvent
function M.on_event(event)
  local p = event.properties or {}
  if event.type == 'permission.asked' then
    enqueue('permission', p.request)
  elseif event.type == 'question.asked' then
    enqueue('question', p.request)
  elseif
    event.type == 'permission.replied'
    or event.type == 'question.replied'
    or event.type == 'question.rejected'
  then
    M.close(p.requestID)
  end
end

--- Ask the server for the dialogs waiting for an answer (after a (re)connect).
function M.resume()
  client.request('agent/permission/list', {}, function(err, result)
    for _, request in ipairs(not err and result and result.requests or {}) do
      enqueue('permission', request)
    end
  end)
  client.request('agent/question/list', {}, function(err, result)
    for _, request in ipairs(not err and result and result.requests or {}) do
      enqueue('question', request)
    end
  end)
end

return M
