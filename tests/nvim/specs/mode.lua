-- :AgentlsMode and :AgentlsEffort against the real server: the winbar shows both and follows the
-- session.mode / session.effort events; auto lets an edit through without a dialog (it waits for
-- review instead); the pickers are vim.ui.select; a level the model lacks is an error naming its levels.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()
local mode = require('agentls.sessions.mode')

local picks = {}
local asked = {}
vim.ui.select = function(items, opts, on_choice)
  local shown = {}
  for _, item in ipairs(items) do
    table.insert(shown, opts.format_item and opts.format_item(item) or item)
  end
  table.insert(asked, { prompt = opts.prompt, kind = opts.kind, items = shown })
  local want = table.remove(picks, 1)
  T.ok(want, 'no dialog expected: ' .. vim.inspect(asked[#asked]))
  for _, item in ipairs(items) do
    if (type(item) == 'table' and item.id or item) == want then
      return vim.schedule(function()
        on_choice(item)
      end)
    end
  end
  error('no ' .. want .. ' in ' .. vim.inspect(shown))
end
local errors = T.notifications(T.at(vim.log.levels.ERROR))

vim.cmd('edit calc.py')
local calc = vim.api.nvim_get_current_buf()
local session = T.open()
T.wait(function()
  return T.winbar():find('mode ask', 1, true) and T.winbar():find('effort default', 1, true)
end, 'mode and effort in the winbar: ' .. T.winbar())

-- Auto: the edit lands without a dialog and waits for review.
vim.cmd('AgentlsMode auto')
T.wait(function()
  return T.winbar():find('mode auto', 1, true)
end, 'auto in the winbar: ' .. T.winbar())
T.send('fix add')
T.idle(session)
T.eq('    return a + b', T.lines(calc)[2], 'the edit landed')
T.eq({}, asked, 'no dialog')
T.wait(function()
  return #require('agentls.review.signs').in_buffer(calc) == 1
end, 'the edit to wait for review')

-- The picker: plan.
picks = { 'plan' }
vim.cmd('AgentlsMode')
T.wait(function()
  return T.winbar():find('mode plan', 1, true)
end, 'plan in the winbar: ' .. T.winbar())
T.eq('agentls mode', asked[1].prompt, 'the mode picker')
T.eq('agentls.mode', asked[1].kind, 'its kind')
T.ok(asked[1].items[2]:find('^● Auto'), 'the current mode marked: ' .. vim.inspect(asked[1].items))

-- Another client (or a command) changes it: the event updates the winbar.
require('agentls.server.client').request('agent/session/mode', { sessionID = session, mode = 'ask' }, nil)
T.wait(function()
  return T.winbar():find('mode ask', 1, true)
end, 'the event in the winbar: ' .. T.winbar())

-- Effort: set, refused with the levels named, picked.
vim.cmd('AgentlsEffort high')
T.wait(function()
  return T.winbar():find('effort high', 1, true)
end, 'high in the winbar: ' .. T.winbar())
T.send('think hard')
T.idle(session)
vim.cmd('AgentlsEffort max')
T.wait(function()
  return #errors == 1
end, 'the refusal')
T.ok(errors[1].msg:find('low, medium, high', 1, true), 'the levels named: ' .. errors[1].msg)
T.ok(T.winbar():find('effort high', 1, true), 'unchanged: ' .. T.winbar())
picks = { 'low' }
vim.cmd('AgentlsEffort')
T.wait(function()
  return T.winbar():find('effort low', 1, true)
end, 'low in the winbar: ' .. T.winbar())
T.eq({ '  low', '  medium', '● high' }, asked[2].items, "the model's levels, the current one marked")
T.eq({ effort = 'low', levels = { 'low', 'medium', 'high' } }, mode.effort[session], 'known')
T.finish()
