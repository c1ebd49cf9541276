-- Pickers: sessions (switch, rename, delete, fork), agent, model, and the message to revert to.
local client = require('agentls.server.client')

local M = {}

local function chat()
  return require('agentls.chat')
end

local function state()
  return require('agentls').state
end

local function report(err)
  if err then
    vim.notify('agentls: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    return true
  end
end

local function when(ms)
  return os.date('%Y-%m-%d %H:%M:%S', math.floor((ms or 0) / 1000))
end

--- A session in the picker, enough to tell two with the same title apart: the title, when it
--- last changed (to the second), the files it changed, and the end of its id.
---@param s agentls.Session
---@return string
function M.describe(s)
  local mark = s.id == chat().session_id and '● ' or '  '
  local items = { when(s.time and s.time.updated) }
  local summary = s.summary
  if summary and (summary.files or 0) > 0 then
    table.insert(
      items,
      ('%d file%s +%d −%d'):format(
        summary.files,
        summary.files == 1 and '' or 's',
        summary.additions or 0,
        summary.deletions or 0
      )
    )
  end
  if type(s.worktree) == 'table' then
    table.insert(items, 1, '⎇ ' .. s.worktree.name)
  end
  table.insert(items, '#' .. s.id:sub(-6))
  return ('%s%s  (%s)'):format(mark, s.title, table.concat(items, ' · '))
end

-- How many of a session's last messages its preview in the picker shows.
M.PREVIEW_MESSAGES = 6

local previews = {} ---@type table<string, {updated: integer|nil, lines: string[]}>
local asking = {} ---@type table<string, fun(lines: string[])>  the latest `show` of a preview on its way

--- The preview of a session in a picker: its title and its last messages, as text (asked from
--- the server once per version of the session; `show` gets a placeholder until then).
---@param session table a Session (or the picker's `{new = true}` entry)
---@param show fun(lines: string[])
function M.preview(session, show)
  if session.new then
    return show({ 'A new session' })
  end
  local updated = session.time and session.time.updated
  local known = previews[session.id]
  if known and known.updated == updated then
    return show(known.lines)
  end
  show({ '# ' .. session.title, '', '…' })
  local on_its_way = asking[session.id]
  asking[session.id] = show
  if on_its_way then
    return -- (asked already: the answer goes to the latest `show`)
  end
  local params = { sessionID = session.id, limit = M.PREVIEW_MESSAGES }
  client.request('agent/session/messages', params, function(err, result)
    show, asking[session.id] = asking[session.id], nil
    local lines = { '# ' .. session.title, '' }
    if err then
      table.insert(lines, 'agentls: ' .. (err.message or vim.inspect(err)))
      return show(lines)
    end
    for _, m in ipairs(result.messages or {}) do
      table.insert(lines, m.info.role == 'user' and '## You' or '## Agent')
      for _, part in ipairs(m.parts or {}) do
        if part.type == 'text' and not part.synthetic then
          vim.list_extend(lines, vim.split(part.text, '\n', { plain = true }))
        elseif part.type == 'tool' then
          table.insert(lines, '⚙ ' .. (part.tool or 'tool'))
        end
      end
      table.insert(lines, '')
    end
    previews[session.id] = { updated = updated, lines = lines }
    show(lines)
  end)
end

--- Show `session_id` in the chat.
---@param session_id string
function M.switch(session_id)
  chat().show(session_id)
end

--- Ask for a new title of `session` (vim.ui.input) and rename it.
---@param session agentls.Session
function M.rename(session)
  vim.ui.input({ prompt = 'New title: ', default = session.title }, function(title)
    if title and vim.trim(title) ~= '' then
      client.request('agent/session/update', { sessionID = session.id, title = title }, function(err, updated)
        if not report(err) then
          state().sessions[updated.id] = updated
          state():emit('session', updated.id, updated)
        end
      end)
    end
  end)
end

--- Delete `session`, once the user says so.
---@param session agentls.Session
function M.delete(session)
  local choices = { 'Delete', 'Keep' }
  local ask =
    { prompt = ('Delete "%s"?'):format(session.title), kind = 'agentls.session_delete', format_item = tostring }
  vim.ui.select(choices, ask, function(choice)
    if choice == 'Delete' then
      client.request('agent/session/delete', { sessionID = session.id }, function(err)
        if not report(err) then
          chat().forget(session.id)
        end
      end)
    end
  end)
end

--- A copy of `session` to go on from, shown in the chat.
---@param session agentls.Session
function M.fork(session)
  client.request('agent/session/fork', { sessionID = session.id }, function(err, forked)
    if not report(err) then
      state().sessions[forked.id] = forked
      M.switch(forked.id)
    end
  end)
end

local ACTIONS = { 'Open', 'Open beside (a tab of its own)', 'Rename', 'Delete', 'Fork' }

local function act(session)
  if not session then
    return
  end
  state().sessions[session.id] = session
  vim.ui.select(
    ACTIONS,
    { prompt = session.title, kind = 'agentls.session_action', format_item = tostring },
    function(action)
      if action == 'Open' then
        M.switch(session.id)
      elseif action == ACTIONS[2] then
        require('agentls.chat.tabs').open(session.id)
      elseif action == 'Rename' then
        M.rename(session)
      elseif action == 'Delete' then
        M.delete(session)
      elseif action == 'Fork' then
        M.fork(session)
      end
    end
  )
end

--- Sessions whose title or messages match `query` (typed words; FTS5 syntax after `fts:`), newest first; each line ends with
--- the words around the match.
local function search(query)
  client.request('agent/session/search', { query = query, limit = 100 }, function(err, result)
    if report(err) then
      return
    end
    local hits = result.hits or {}
    if #hits == 0 then
      return vim.notify(('agentls: no session matches %q'):format(query), vim.log.levels.INFO)
    end
    local snippets, sessions = {}, {}
    for _, hit in ipairs(hits) do
      snippets[hit.session.id] = hit.snippet:gsub('%s+', ' ')
      table.insert(sessions, hit.session)
    end
    require('agentls.ui.picker').select(sessions, {
      prompt = ('agentls sessions matching %q'):format(query),
      kind = 'agentls.session',
      format_item = function(s)
        return ('%s  %s'):format(M.describe(s), snippets[s.id])
      end,
      preview = M.preview,
    }, act)
  end)
end

--- Pick a session (one that matches `query`, when given), then what to do with it.
---@param query? string
function M.pick(query)
  if query and vim.trim(query) ~= '' then
    return search(vim.trim(query))
  end
  client.request('agent/session/list', { limit = 100 }, function(err, result)
    if report(err) then
      return
    end
    local sessions = result.sessions or {}
    if #sessions == 0 then
      return vim.notify('agentls: no sessions yet', vim.log.levels.INFO)
    end
    require('agentls.ui.picker').select(sessions, {
      prompt = 'agentls sessions',
      kind = 'agentls.session',
      format_item = M.describe,
      preview = M.preview,
    }, act)
  end)
end

--- Pick the agent (`kind` = 'agent') or model ('model') for the next prompts. The first entry drops
--- the pick: the session's own, then the settings' default, applies again (and follows the settings).
---@param kind 'agent'|'model'
function M.pick_config(kind)
  client.request('agent/config', {}, function(err, result)
    if report(err) then
      return
    end
    state():set_config(result)
    local session_id = chat().session_id
    local agent, model = state():defaults(session_id)
    local current = kind == 'agent' and chat().agent or chat().model
    local items = { { follow = true, name = kind == 'agent' and agent or model } }
    if kind == 'agent' then
      for _, a in ipairs(result.agents or {}) do
        if a.mode ~= 'subagent' then
          table.insert(items, a)
        end
      end
    else
      for _, m in ipairs(result.models or {}) do
        table.insert(items, { name = m })
      end
    end
    vim.ui.select(items, {
      prompt = 'agentls ' .. kind,
      kind = 'agentls.' .. kind,
      format_item = function(item)
        if item.follow then
          return ('%sno pick: follow the session and the settings (now %s)'):format(
            current == nil and '● ' or '  ',
            item.name or '?'
          )
        end
        local mark = item.name == current and '● ' or '  '
        local about = item.description and item.description ~= '' and (' — ' .. item.description) or ''
        return mark .. item.name .. about
      end,
    }, function(item)
      if item then
        chat()[kind] = not item.follow and item.name or nil
        if kind == 'model' and session_id then
          require('agentls.sessions.mode').fetch(session_id) -- the effort levels of the model now picked
        end
        vim.cmd('redrawstatus!')
      end
    end)
  end)
end

--- Revert the session's file changes from a prompt of the user's on (default: pick one).
function M.revert()
  local session_id = chat().session_id
  if not session_id then
    return
  end
  local t = state().transcripts[session_id] or { order = {}, messages = {} }
  local prompts = {}
  for i = #t.order, 1, -1 do
    local m = t.messages[t.order[i]]
    if m.info.role == 'user' then
      local text = ''
      for _, part in ipairs(m.parts) do
        if part.type == 'text' and not part.synthetic then
          text = part.text
          break
        end
      end
      table.insert(prompts, { id = m.info.id, text = text })
    end
  end
  if #prompts == 0 then
    return vim.notify('agentls: nothing to revert', vim.log.levels.INFO)
  end
  vim.ui.select(prompts, {
    prompt = 'Revert the changes from this prompt on',
    kind = 'agentls.revert',
    format_item = function(p)
      return (p.text:gsub('\n', ' ')):sub(1, 80)
    end,
  }, function(p)
    if p then
      client.request('agent/session/revert', { sessionID = session_id, messageID = p.id }, function(err)
        if not report(err) then
          chat().load(session_id)
        end
      end)
    end
  end)
end

--- Bring back what the last revert of the session undid.
function M.unrevert()
  local session_id = chat().session_id
  if session_id then
    client.request('agent/session/unrevert', { sessionID = session_id }, function(err)
      if not report(err) then
        chat().load(session_id)
      end
    end)
  end
end

--- The session's changes, file by file, in a diff tab.
function M.diff()
  local session_id = chat().session_id
  if not session_id then
    return
  end
  client.request('agent/session/diff', { sessionID = session_id }, function(err, result)
    if not report(err) then
      require('agentls.review.diff').session_diff(result.files or {}, require('agentls.config').root())
    end
  end)
end

return M
