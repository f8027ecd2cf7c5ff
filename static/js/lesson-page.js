// The deep dive's entry point: lesson.js itself does nothing on import.
import {startLessonPage} from "./lesson.js";

startLessonPage();
