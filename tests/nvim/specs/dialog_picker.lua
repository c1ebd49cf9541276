-- A plugin picker in place of vim.ui.select: the permission dialog opens in it when the user is
-- not typing; dismissing it answers nothing (the request keeps waiting, the winbar says so);
-- :AgentlsDialog opens it again, and the choice made there is the answer.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local asked = {}
local answers = { false, 'Allow once' } -- false: the user closes the picker without a choice
vim.ui.select = function(items, opts, on_choice)
  table.insert(asked, { prompt = opts.prompt, kind = opts.kind, items = items })
  local answer = table.remove(answers, 1)
  vim.schedule(function()
    on_choice(answer or nil, answer and 1 or nil)
  end)
end
local warnings = T.notifications(T.at(vim.log.levels.WARN))

local session = T.open()
T.send('run it')
T.wait(function()
  return #asked == 1
end, 'the picker')
T.eq('agentls.permission', asked[1].kind, 'a permission dialog')
T.ok(asked[1].prompt:find('bash', 1, true), 'about bash: ' .. asked[1].prompt)
-- Dismissed: nothing was answered; it waits, and says how to get it back.
T.wait(function()
  return T.winbar():find('permission: bash', 1, true)
end, 'the waiting dialog in the winbar: ' .. T.winbar())
-- (No notification: the chat is on screen and its winbar says it; one right after a dialog closed
-- brought a hit-enter prompt with Neovim's own select.)
T.eq(0, #warnings, 'no notification: ' .. vim.inspect(warnings))
T.eq('busy', require('agentls').state.status[session].type, 'the turn waits')
T.eq('agentls: permission: bash waits (:AgentlsDialog)', require('agentls').status(), 'the statusline says it')
T.eq(0, vim.fn.filereadable('ran.txt'), 'the command did not run')
T.eq(1, #asked, 'the picker did not come back by itself')

vim.cmd('AgentlsDialog')
T.eq(2, #asked, 'the picker again')
T.idle(session)
T.eq(1, vim.fn.filereadable('ran.txt'), 'the command ran once allowed')
T.ok(not T.winbar():find('permission', 1, true), 'the winbar no longer mentions it: ' .. T.winbar())
T.finish()
