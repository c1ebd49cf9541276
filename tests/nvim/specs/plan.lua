-- Plan review in a plan buffer: the plan agent's plan opens as Markdown, a revision with nothing to
-- say is refused (the plan still waits), a comment on a line and a message go back with
-- :AgentlsPlanRevise, the revised plan replaces the buffer's text, :AgentlsPlanApprove hands it to
-- the build agent, whose edit lands.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()
local plan = require('agentls.review.plan')
local NAME = 'agentls://plan/.agentls/plans/fix-add.md'

local function only_pending()
  local id = next(plan.pending)
  return id and plan.pending[id]
end

local session = T.open()
T.chat().agent = 'plan'
T.send('plan the fix of add')
local first
T.wait(function()
  first = only_pending()
  return first and vim.fn.bufnr(NAME) ~= -1
end, 'the plan buffer')
local buf = vim.fn.bufnr(NAME)
T.eq('markdown', vim.bo[buf].filetype, 'a Markdown buffer')
T.eq(false, vim.bo[buf].modifiable, 'read-only')
T.ok(T.text(buf):find('make add return a + b', 1, true), 'the plan text')
T.ok(vim.fn.bufwinid(buf) ~= -1, 'the plan is shown')

vim.api.nvim_set_current_win(vim.fn.bufwinid(buf))
local warnings = T.notifications(T.at(vim.log.levels.WARN))
vim.cmd('AgentlsPlanRevise')
T.eq(1, #warnings, 'a revision that says nothing is refused')
T.ok(plan.pending[first.request.id], 'the plan still waits')
vim.cmd('3AgentlsPlanComment which tests?')
T.eq({ { line = 2, text = 'which tests?' } }, plan.comments(first), 'the comment, 0-based')
local virt = vim.api.nvim_buf_get_extmarks(buf, plan.ns, 0, -1, { details = true })
T.eq('  ✎ which tests?', virt[1][4].virt_lines[1][1][1], 'shown under the line')
vim.cmd('AgentlsPlanRevise Also cover negatives.')

local second
T.wait(function()
  second = only_pending()
  return second and second.request.id ~= first.request.id
end, 'the revised plan')
T.ok(T.text(buf):find('negative numbers', 1, true), 'the buffer shows the revision')
T.eq({}, vim.api.nvim_buf_get_extmarks(buf, plan.ns, 0, -1, {}), 'the old comments are gone')
vim.cmd('AgentlsPlanApprove')
T.wait(function()
  return T.text(T.transcript()):find('add is fixed', 1, true)
end, "the build agent's answer")
T.idle(session)
T.eq(nil, next(plan.pending), 'nothing waits')
T.finish()
