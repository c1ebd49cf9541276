-- A stock Neovim 0.11 user reviews the agent's plan: no plugin, only vim.lsp and the server's
-- commands. Run by tests/stock/test_neovim_plan.py. The plan opens as its file (window/showDocument);
-- vim.ui.select (where stock Neovim shows showMessageRequest) answers from a queue: "Revise" after
-- writing a note into the plan and saving it, then "Approve". Results go to JSON.
local user = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/nvim_user.lua')
local spec, out, save, fail = user.spec, user.out, user.save, user.fail
local disk = user.disk
out.dialogs = {}

local picks = vim.deepcopy(spec.picks)
vim.ui.select = function(items, opts, on_choice)
  local titles = {}
  for _, item in ipairs(items) do
    table.insert(titles, item.title or vim.NIL)
  end
  local want = table.remove(picks, 1)
  local plan_buf = vim.fn.bufnr(spec.plan)
  table.insert(out.dialogs, {
    prompt = opts.prompt,
    titles = titles,
    picked = want or vim.NIL,
    plan_open = plan_buf ~= -1,
  })
  if want == 'Revise' and plan_buf ~= -1 then
    -- The user writes a note under the plan's last line and saves (:w), then picks Revise.
    vim.cmd('checktime')
    vim.api.nvim_buf_set_lines(plan_buf, -1, -1, false, { spec.note })
    vim.api.nvim_buf_call(plan_buf, function()
      vim.cmd('silent write')
    end)
  end
  for i, title in ipairs(titles) do
    if title == want then
      return on_choice(items[i], i)
    end
  end
  on_choice(nil) -- Escape
end

user.start({ dialogMinRead = 0 })

local function scenario()
  vim.cmd.edit(spec.hello)
  local buf = vim.api.nvim_get_current_buf()
  local client = user.attached(buf)
  if not client then
    return
  end

  local command = user.commands(client, buf)

  out.mode = command('agentls.mode', { 'plan' })
  out.prompt = command('agentls.prompt', { 'plan a goodbye' }, 90000)
  out.hello = disk(spec.hello)
  out.mode_after = command('agentls.mode', {})
  out.messages = vim.api.nvim_exec2('messages', { output = true }).output
end

local ok, problem = pcall(scenario)
if not ok then
  return fail(tostring(problem))
end
save()
vim.cmd('qa!')
