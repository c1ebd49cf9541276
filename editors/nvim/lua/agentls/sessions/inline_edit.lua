-- :'<,'>AgentlsEdit {prompt}: the agent changes the selected lines in place, no chat needed. Each edit
-- is a session of its own ("Edit calc.py:2-3: …", in the session picker like any other) in auto mode,
-- so the change lands at once in the buffer and waits for review there: signs, the replaced lines
-- inline (agentls.review.inline), keep/undo with the review keys. One short line says when it is
-- ready, or what the agent said instead of editing.
local client = require('agentls.server.client')
local files = require('agentls.context.files')
local notify = require('agentls.ui.notify')

local M = {}

-- What goes before the user's words: the lines to change, and where the change must stay.
local INSTRUCTION = 'Change only the lines %s, in place, as follows: %s'

local function fail(err)
  notify.say('agentls: the edit failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
end

-- The first line of the agent's answer (its text parts), for when it changed nothing.
local function answer_of(result)
  for _, part in ipairs(result and result.parts or {}) do
    if part.type == 'text' and vim.trim(part.text or '') ~= '' then
      return vim.split(vim.trim(part.text), '\n', { plain = true })[1]
    end
  end
  return 'no answer'
end

-- Whether the session left a pending change (agentls.review.signs knows every session's hunks).
local function changed(session_id)
  for _, hunk in pairs(require('agentls.review.signs').pending) do
    if hunk.sessionID == session_id then
      return true
    end
  end
  return false
end

--- Ask the agent to change lines `first`..`last` (1-based) of `buf` as `prompt` says.
function M.run(buf, first, last, prompt)
  prompt = vim.trim(prompt or '')
  if prompt == '' then
    return notify.say("agentls: say what to change, e.g. :'<,'>AgentlsEdit make it async", vim.log.levels.WARN)
  end
  local path = vim.api.nvim_buf_get_name(buf)
  if not client.is_project_file(buf) then
    return notify.say('agentls: :AgentlsEdit works on a file of the project', vim.log.levels.WARN)
  end
  local ref = files.reference(path, first, last)
  local where = ('%s:%d-%d'):format(vim.fn.fnamemodify(path, ':t'), first, last)
  local title = ('Edit %s: %s'):format(where, prompt)
  client.request('agent/session/create', { title = title }, function(err, session)
    if err then
      return fail(err)
    end
    local sid = session.id
    local mode = { sessionID = sid, sessionId = sid, mode = 'auto' }
    client.request('agent/session/mode', mode, function(mode_err)
      if mode_err then
        return fail(mode_err)
      end
      local text = INSTRUCTION:format(ref, prompt)
      local parts = { { type = 'text', text = text } }
      vim.list_extend(parts, files.parts(text))
      notify.say(('agentls: editing %s…'):format(where), vim.log.levels.INFO)
      client.request('agent/session/prompt', { sessionID = sid, parts = parts, mode = 'queue' }, function(p_err, result)
        if p_err then
          return fail(p_err)
        end
        if changed(sid) then
          local keys = require('agentls.config').options.keymaps
          notify.say(
            ('agentls: %s changed: review it (%s keep, %s undo)'):format(
              where,
              keys.review_keep or ':AgentlsReview',
              keys.review_undo or ':AgentlsReview'
            ),
            vim.log.levels.INFO
          )
        else
          notify.say(('agentls: %s unchanged: %s'):format(where, answer_of(result)), vim.log.levels.WARN)
        end
      end)
    end)
  end)
end

return M
