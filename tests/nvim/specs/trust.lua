-- Project trust (agentls.server.trust) in a project with its own command file (.agentls/commands/hello.md):
-- the server starts without it and the plugin asks (vim.ui.select, recorded here); "Not now" keeps
-- it out; :AgentlsTrust → Trust restarts the server with it; :AgentlsTrust → Never restarts it
-- without, and that answer is remembered (TRUST_STEP=again: a second Neovim asks nothing).
local T = dofile(os.getenv('AGENTLS_TEST_HELPERS'))
T.setup()

local asked, answers = {}, {}
vim.ui.select = function(items, opts, on_choice)
  table.insert(asked, { items = items, prompt = opts.prompt, kind = opts.kind })
  local answer = table.remove(answers, 1)
  vim.schedule(function()
    on_choice(answer)
  end)
end

local client = require('agentls.server.client')
local trust = require('agentls.server.trust')

local function commands()
  local names, done = nil, false
  client.request('agent/commands', {}, function(err, result)
    assert(not err, vim.inspect(err))
    names = {}
    for _, c in ipairs(result.commands) do
      names[c.name] = true
    end
    done = true
  end)
  T.wait(function()
    return done
  end, 'the command list')
  return names
end

local function restarted_from(old)
  T.wait(function()
    return client.id and client.id ~= old and client.ready
  end, 'the restarted server')
end

local root = vim.fn.getcwd()

if os.getenv('TRUST_STEP') == 'again' then
  -- The answer "Never" of the first Neovim: nothing is asked, the project's command stays out.
  T.eq('untrusted', trust.state(root), 'the remembered answer')
  -- The plugin decides whether to ask when the server is ready, before the chat's first request
  -- (and at once here: no key was typed), so by the time the chat shows its session it has.
  T.open()
  T.eq(nil, commands().hello, 'the project command of an untrusted project')
  T.eq(0, #asked, 'dialogs asked')
  T.finish()
  return
end

T.eq(nil, trust.state(root), 'a new project: never answered')
T.eq({ '.agentls' }, trust.found(root), 'what the project has of its own')
answers = { trust.NOT_NOW }
T.open()
T.wait(function()
  return #asked == 1
end, 'the trust dialog')
T.eq('agentls.trust', asked[1].kind, 'the dialog kind')
T.eq({ trust.TRUST, trust.NOT_NOW, trust.NEVER }, asked[1].items, 'the choices')
T.ok(asked[1].prompt:find('has its own .agentls', 1, true), 'a prompt naming what it has: ' .. asked[1].prompt)
T.ok(commands().compact and not commands().hello, 'built-in commands only before trust')

-- "Not now": not asked again in this Neovim, and nothing restarts.
local first, before = client.id, T.chat().session_id
vim.cmd('AgentlsNew')
T.wait(function()
  return T.chat().session_id and T.chat().session_id ~= before
end, 'the new session')
T.eq(1, #asked, 'dialogs after Not now')
T.eq(first, client.id, 'the server after Not now')
T.eq(nil, trust.state(root), 'Not now is not stored')

-- :AgentlsTrust → Trust while a turn runs: stored at once, the server restarts once the turn ended
-- (with the project's command).
local said = T.notifications(function(msg)
  return msg:find('once the turn ends', 1, true) ~= nil
end)
T.send('a slow one')
local sid = T.chat().session_id
T.wait(function()
  local status = require('agentls').state.status[sid]
  return status and status.type == 'busy'
end, 'the turn to run')
answers = { trust.TRUST }
vim.cmd('AgentlsTrust')
T.wait(function()
  return #said == 1
end, 'the word that the restart waits for the turn')
T.eq('trusted', trust.state(root), 'the answer, stored at once')
T.eq(first, client.id, 'the server while the turn runs')
T.idle(sid)
T.wait(function()
  return T.text(T.transcript()):find('slow answer', 1, true)
end, 'the whole answer')
restarted_from(first)
T.eq('trusted', trust.state(root), 'the stored answer')
T.ok(commands().hello, "the project's command once trusted")
T.ok(T.chat().session_id, 'the chat keeps its session')

-- :AgentlsTrust → Never: stored, the server restarts without it.
local second = client.id
answers = { trust.NEVER }
vim.cmd('AgentlsTrust')
restarted_from(second)
T.eq('untrusted', trust.state(root), 'the stored answer')
T.eq(nil, commands().hello, 'the project command once untrusted')
T.eq(3, #asked, 'dialogs in all')
T.finish()
