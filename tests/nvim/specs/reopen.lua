-- A new Neovim finds the sessions of the last one: :Agentls resumes the newest with its transcript,
-- and the picker opens the renamed one with its own.
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

vim.ui.select = function(items, opts, on_choice)
  vim.schedule(function()
    if opts.prompt == 'agentls sessions' then
      for _, s in ipairs(items) do
        if s.title == 'Renamed first' then
          return on_choice(s)
        end
      end
      error('no renamed session in ' .. vim.inspect(items))
    end
    on_choice('Open')
  end)
end

vim.cmd('Agentls')
T.wait(function()
  return T.chat().session_id and T.transcript() and T.text(T.transcript()):find('answer', 1, true)
end, 'the newest session with its transcript')

vim.cmd('AgentlsSessions')
T.wait(function()
  local buf = T.transcript()
  return buf and T.text(buf):find('first answer', 1, true)
end, 'the renamed session with its transcript')
local text = T.text(T.transcript())
T.ok(text:find('## You\n\nfirst question', 1, true), 'the first prompt:\n' .. text)
T.finish()
