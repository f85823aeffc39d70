import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { createSchedule } from '../../domain/schedules/create-schedule.ts';
import { deleteSchedule } from '../../domain/schedules/delete-schedule.ts';
import { getSchedule } from '../../domain/schedules/get-schedule.ts';
import { listSchedules } from '../../domain/schedules/list-schedules.ts';
import { updateSchedule } from '../../domain/schedules/update-schedule.ts';
import { callerOf } from '../caller-of.ts';
import { requestKeyOf } from '../request-key-of.ts';
import { presentCreatedSchedule, presentSchedule, presentScheduleListItem } from '../presenters/schedule.ts';
import { pageRequestOf, sendPage } from '../paging.ts';
import type { Schemas } from '../schemas.ts';

export function scheduleRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/schedules', async (req, res) => {
    const page = await listSchedules(deps, callerOf(res), pageRequestOf(req));
    sendPage(req, res, page, page.items.map(presentScheduleListItem));
  });

  router.post('/schedules', async (req, res) => {
    const view = await createSchedule(deps, callerOf(res), req.body as Schemas['CreateScheduleRequest'], requestKeyOf(res));
    res.status(201).location(`/api/v1/schedules/${view.schedule.id}`).json(presentCreatedSchedule(view));
  });

  router.get('/schedules/:id', async (req, res) => {
    res.json(presentSchedule(await getSchedule(deps, callerOf(res), req.params.id)));
  });

  router.put('/schedules/:id', async (req, res) => {
    res.json(presentSchedule(await updateSchedule(deps, callerOf(res), req.params.id, req.body as Schemas['UpdateScheduleRequest'])));
  });

  router.delete('/schedules/:id', async (req, res) => {
    await deleteSchedule(deps, callerOf(res), req.params.id);
    res.status(204).end();
  });

  return router;
}
